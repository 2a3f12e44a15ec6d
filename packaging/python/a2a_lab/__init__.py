"""The A2A Lifecycle Lab's `a2a-lab` binary, installed by this wheel."""

import os
import sysconfig


def find_a2a_lab_bin() -> str:
    """The path of the `a2a-lab` binary this wheel installed."""
    exe = "a2a-lab" + (sysconfig.get_config_var("EXE") or "")
    # pip puts a wheel's binary in the scripts folder of the scheme it
    # installed into: the environment's, the user's (`pip install --user`),
    # or, for `pip install --target DIR`, DIR/bin beside this package.
    places = [sysconfig.get_path("scripts")]
    if hasattr(sysconfig, "get_preferred_scheme"):
        user_scheme = sysconfig.get_preferred_scheme("user")
    else:
        user_scheme = os.name + "_user"
    try:
        places.append(sysconfig.get_path("scripts", scheme=user_scheme))
    except KeyError:
        pass
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    places.append(os.path.join(package_parent, "bin"))
    for place in places:
        path = os.path.join(place, exe)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{exe} is in none of {', '.join(places)}: reinstall the a2a-lab wheel")


__all__ = ["find_a2a_lab_bin"]
