// Starts the lab. A file of its own (not an inline script) so the page's
// Content-Security-Policy can forbid inline scripts; URLs are relative to
// this file, so the bundle works under any path prefix.
//
// The loader is imported here rather than at the top so that a module that
// never arrives (offline, a proxy, a browser without WebAssembly) is said
// on the page, with a Retry, instead of leaving it blank.
import('./a2a-lifecycle-lab.js')
  .then(({ default: init }) => init({ module_or_path: new URL('./a2a-lifecycle-lab_bg.wasm', import.meta.url) }))
  .catch((error) => {
    const line = document.getElementById('lab-boot');
    if (!line) return; // the lab mounted: what failed is its own to say
    line.className = 'lab-boot lab-boot--failed';
    line.setAttribute('role', 'alert');
    line.textContent = `The lab could not load (${error && error.message ? error.message : error}). Check the connection, then try again.`;
    const retry = document.createElement('button');
    retry.className = 'lab-boot__retry';
    retry.textContent = 'Retry';
    retry.addEventListener('click', () => location.reload());
    line.append(retry);
  });
