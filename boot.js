// Starts the lab. A file of its own (not an inline script) so the page's
// Content-Security-Policy can forbid inline scripts; URLs are relative to
// this file, so the bundle works under any path prefix.
import init from './a2a-lifecycle-lab.js';

init({ module_or_path: new URL('./a2a-lifecycle-lab_bg.wasm', import.meta.url) });
