//! The BBS-1042 order-status agent on a2a-server-lf 0.5.3.
//!
//!     order-status-agent [serve] CONFIG_JSON
//!
//! CONFIG_JSON is what tests/agents/launch.py passes to every SDK's `serve` child
//! (see order_status::server). It listens on 127.0.0.1:PORT until killed and writes
//! nothing to stdout; the SDK's own WARN/ERROR log lines go to stderr.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let conf_text = match args.as_slice() {
        [conf] => conf.clone(),
        [cmd, conf] if cmd == "serve" => conf.clone(),
        _ => {
            eprintln!("usage: order-status-agent [serve] CONFIG_JSON");
            std::process::exit(2);
        }
    };
    let conf = serde_json::from_str(&conf_text)
        .map_err(|e| e.to_string())
        .and_then(|v| order_status::server::Config::from_json(&v));
    let conf = match conf {
        Ok(c) => c,
        Err(e) => {
            eprintln!("order-status-agent: bad config: {e}");
            std::process::exit(2);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_max_level(tracing_subscriber::filter::LevelFilter::WARN)
        .with_ansi(false)
        .without_time()
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    if let Err(e) = rt.block_on(order_status::server::run(conf)) {
        eprintln!("order-status-agent: {e}");
        std::process::exit(2);
    }
}
