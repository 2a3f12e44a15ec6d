//! Import: files chosen with the picker or dropped onto the page, read in
//! order as one import a slice at a time, with a progress bar, so that a
//! big capture never freezes the page; then an export restores its
//! scenario and a capture is shown instead of the simulation.

use leptos::prelude::*;

#[cfg(target_arch = "wasm32")]
use super::deferred::{chunk, enter, Unloaded};
use super::flag;
#[cfg(target_arch = "wasm32")]
use super::lab::ImportProgress;
use super::lab::{ImportStage, Lab};
use crate::model::evidence::export::MAX_FILE_BYTES;
use crate::model::evidence::import::Imported;
use crate::model::pictures::shown::{import_summary, Shown};

/// How much of a file is read and judged between two chances for the page
/// to paint and answer input.
#[cfg(target_arch = "wasm32")]
const SLICE_BYTES: f64 = (1 << 20) as f64;

/// The most the page reads, as the page states it.
pub fn limit_text() -> String {
    format!("{} MiB", MAX_FILE_BYTES >> 20)
}

/// Applies what was imported to the lab: an export restores its inputs; a
/// capture replaces the simulation in the views until the user goes back.
pub fn apply_imported(lab: Lab, imported: Imported) {
    let summary = import_summary(&imported);
    let clean = match imported {
        Imported::Export { scenario, report } => {
            lab.leave_capture();
            lab.scenario.set(scenario);
            lab.step.set(None);
            report.findings.is_empty()
        }
        Imported::Probe(report) => {
            let clean = report.findings.is_empty();
            lab.show(Shown::probe(report));
            clean
        }
        Imported::Capture(report) => {
            let clean = report.findings.is_empty();
            lab.show(Shown::capture(report));
            clean
        }
    };
    if clean {
        lab.info(summary);
    } else {
        lab.error(summary);
    }
}

/// Reads `files` in order as one import, a slice at a time, showing the
/// progress; anything unreadable is an inline error and changes nothing.
#[cfg(target_arch = "wasm32")]
pub fn import(lab: Lab, files: Vec<web_sys::File>) {
    if files.is_empty() {
        return;
    }
    let total = files.iter().map(|f| f.size()).sum::<f64>() as u64;
    if total > MAX_FILE_BYTES as u64 {
        lab.error(format!(
            "Import failed: {total} bytes; the page reads at most {} (the a2a-lab CLI reads captures of any size). Nothing was changed.",
            limit_text()
        ));
        return;
    }
    // Never reused: an import that was cancelled must not take a later one
    // for itself.
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let progress = ImportProgress {
        run,
        read: 0,
        total,
        file: files.first().map(web_sys::File::name).unwrap_or_default(),
        index: 1,
        files: files.len(),
        stage: ImportStage::Loading,
    };
    lab.import.set(Some(progress.clone()));
    // The progress bar says what is read; the last result is stale now.
    lab.message.set(None);
    leptos::task::spawn_local(async move {
        // The files wait here for a Retry until the reader's chunk is in.
        PENDING.with(|p| p.replace(files.clone()));
        match enter!(reader_entry(lab, progress.clone(), files)) {
            Ok(reading) => {
                PENDING.with(|p| p.take());
                reading.await;
            }
            Err(_) if is_current(lab, run) => lab.import.set(Some(ImportProgress {
                stage: ImportStage::Unloaded,
                ..progress
            })),
            Err(_) => {}
        }
    });
}

#[cfg(target_arch = "wasm32")]
thread_local! {
    /// The files of an import whose reader did not load, for Retry.
    static PENDING: std::cell::RefCell<Vec<web_sys::File>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Starts fetching Import's chunk, when the user opens the file chooser
/// or drags files over the page: it arrives while the files are chosen.
/// A failure shows when the files are read (their Retry fetches it again).
pub fn preload() {
    #[cfg(all(target_arch = "wasm32", feature = "split"))]
    leptos::task::spawn_local(async {
        let _ = preload_reader().await;
    });
}

/// Imports again the files whose reader did not load.
fn retry(lab: Lab) {
    #[cfg(target_arch = "wasm32")]
    import(lab, PENDING.with(|p| p.take()));
    #[cfg(not(target_arch = "wasm32"))]
    let _ = lab;
}

#[cfg(target_arch = "wasm32")]
chunk!(
    import,
    preload = preload_reader,
    /// Import's chunk: every reader of exports, captures and probe reports,
    /// what applies their result, and the capture's panel
    /// ([`super::capture::capture_entry`]). Its entry starts the read.
    fn reader_entry(
        lab: Lab,
        progress: ImportProgress,
        files: Vec<web_sys::File>,
    ) -> Result<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>, Unloaded> {
        Ok(Box::pin(async move {
            let run = progress.run;
            match read(lab, progress, &files).await {
                Ok(Some(imported)) => apply_imported(lab, imported),
                Ok(None) => return,
                Err(e) => lab.error(format!("Import failed: {e}. Nothing was changed.")),
            }
            if is_current(lab, run) {
                lab.import.set(None);
            }
        }))
    }
);

/// Whether import `run` is still the one under way.
#[cfg(target_arch = "wasm32")]
fn is_current(lab: Lab, run: u64) -> bool {
    lab.import
        .with_untracked(|p| p.as_ref().is_some_and(|p| p.run == run))
}

/// The files, slice by slice, through the model's importer; `None` when a
/// newer import or Cancel ended this one. An error is only shown, so it
/// is its message: the importer's, or a file the browser could not read.
#[cfg(target_arch = "wasm32")]
async fn read(
    lab: Lab,
    mut progress: ImportProgress,
    files: &[web_sys::File],
) -> Result<Option<Imported>, String> {
    use crate::model::evidence::import::Importer;
    let mut importer = Importer::named(files.iter().map(web_sys::File::name).collect());
    let mut buf = Vec::new();
    for (i, file) in files.iter().enumerate() {
        let unreadable = || format!("{} could not be read", file.name());
        let size = file.size();
        let mut at = 0.0;
        while at < size {
            let end = (at + SLICE_BYTES).min(size);
            let blob = file
                .slice_with_f64_and_f64(at, end)
                .map_err(|_| unreadable())?;
            let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer())
                .await
                .map_err(|_| unreadable())?;
            if !is_current(lab, progress.run) {
                return Ok(None);
            }
            let bytes = js_sys::Uint8Array::new(&buffer);
            buf.resize(bytes.length() as usize, 0);
            bytes.copy_to(&mut buf);
            importer.feed(&buf).map_err(|e| e.to_string())?;
            at = end;
            progress.read += buf.len() as u64;
            progress.file = file.name();
            progress.index = i + 1;
            progress.stage = ImportStage::Reading;
            lab.import.set(Some(progress.clone()));
            // Let the page paint the progress and answer input.
            super::browser::next_task().await;
            if !is_current(lab, progress.run) {
                return Ok(None);
            }
        }
        importer.end_file().map_err(|e| e.to_string())?;
    }
    // Each task with a finding is explained when it is opened
    // (`CaptureView`), never all at once here.
    importer
        .finish_unexplained()
        .map(Some)
        .map_err(|e| e.to_string())
}

/// Files dragged over the page and dropped onto it are imported as the
/// picker's are. Nothing here takes focus or a key: the picker is the
/// keyboard's way in, and the drop is announced by [`ImportStatus`].
pub fn on_drag(lab: Lab, depth: StoredValue<i32>, ev: &web_sys::DragEvent) {
    let kind = ev.type_();
    let files = carries_files(ev);
    if kind == "drop" {
        depth.set_value(0);
        lab.dragging.set(false);
        if !files {
            // Text dropped into a field is the browser's to handle.
            return;
        }
        ev.prevent_default();
        #[cfg(target_arch = "wasm32")]
        {
            let files = ev.data_transfer().and_then(|d| d.files());
            let files = files.map_or_else(Vec::new, |list| {
                (0..list.length()).filter_map(|i| list.get(i)).collect()
            });
            import(lab, files);
        }
        return;
    }
    if !files {
        return;
    }
    // A drop is allowed only where dragover was cancelled.
    ev.prevent_default();
    match kind.as_str() {
        "dragenter" => {
            if depth.get_value() == 0 {
                preload();
            }
            depth.update_value(|d| *d += 1);
            lab.dragging.set(true);
        }
        "dragleave" => {
            depth.update_value(|d| *d -= 1);
            if depth.get_value() <= 0 {
                depth.set_value(0);
                lab.dragging.set(false);
            }
        }
        _ => {}
    }
}

/// Whether a drag holds files (not text or a link dragged within the page).
fn carries_files(ev: &web_sys::DragEvent) -> bool {
    #[cfg(target_arch = "wasm32")]
    {
        ev.data_transfer()
            .is_some_and(|d| d.types().includes(&"Files".into(), 0))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = ev;
        false
    }
}

/// The import under way (a labelled progress bar and Cancel), and the drop
/// zone's outline and announcement while files are dragged over the page.
#[component]
pub fn ImportStatus() -> impl IntoView {
    let lab = expect_context::<Lab>();
    let cancel = move |_| {
        lab.import.set(None);
        lab.info("Import canceled. Nothing was changed.");
    };
    let importing = flag(move || lab.import.with(Option::is_some));
    let stage = Memo::new(move |_| lab.import.with(|p| p.as_ref().map(|p| p.stage)));
    // A memo, so that the announcement changes when a file starts, not at
    // every slice.
    let reading = Memo::new(move |_| {
        lab.import.with(|p| {
            p.as_ref().map_or_else(String::new, |p| match p.stage {
                ImportStage::Loading => format!("Loading the importer for {}…", p.file),
                ImportStage::Reading => format!("Reading {} (file {} of {})", p.file, p.index, p.files),
                ImportStage::Unloaded => "Import could not load its reader: the page's server did not send it (offline?). Nothing was changed.".into(),
            })
        })
    });
    let read = move || lab.import.with(|p| p.as_ref().map_or(0, |p| p.read));
    let total = move || {
        lab.import
            .with(|p| p.as_ref().map_or(1, |p| p.total.max(1)))
    };
    let count = move || format!("{} of {} KiB", read() >> 10, total() >> 10);
    let progress = view! {
        {move || importing.get().then(|| view! {
            <div class="import" class:import--failed=move || stage.get() == Some(ImportStage::Unloaded)>
                <p class="import__label" role="status">
                    <label for="import-progress">{move || reading.get()}</label>
                </p>
                <progress id="import-progress" class="import__bar" max=move || total().to_string() value=move || read().to_string()></progress>
                <span class="import__count" aria-hidden="true">{move || count()}</span>
                {move || (stage.get() == Some(ImportStage::Unloaded)).then(|| view! {
                    <button class="import__retry" on:click=move |_| retry(lab)>"Retry"</button>
                }.into_any())}
                <button class="import__cancel" on:click=cancel>"Cancel"</button>
            </div>
        }.into_any())}
    };
    let dragging = move || lab.dragging.get();
    view! {
        {progress}
        <div class="dropzone" class:dropzone--active=move || dragging() aria-hidden="true">
            <p class="dropzone__text">"Drop the files to import them, in order, as one capture"</p>
        </div>
        <p class="visually-hidden" role="status">
            {move || dragging().then(|| "Files are over the lab: drop them to import them, in order, as one capture.".into_any())}
        </p>
    }
}
