"use strict";
// The Quire app's page: long work shows its progress. Moving, copying, trashing or putting back
// many items, and importing files, show a bar at the foot of the page with what is done and a
// Cancel button, as the operations of Finder and GNOME Files do. Cancel stops before the next
// item, and an import also aborts the file on its way (the app keeps nothing of a file it did
// not receive whole). What is done stays done, and Ctrl+Z takes it back.

// A job of `total` steps (items, or bytes for an import), shown while it runs when `shown`.
// `job.cancelled` turns true when its Cancel button is pressed, and `job.abort` (if set) is
// called then.
function startJob(verb, total, shown) {
  const job = { cancelled: false, abort: null, step: () => {}, end: () => {} };
  if (!shown) return job;
  const row = document.createElement("div");
  row.className = "job";
  const text = document.createElement("span");
  const bar = document.createElement("progress");
  bar.max = total;
  bar.value = 0;
  bar.setAttribute("aria-label", verb);
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "Cancel";
  cancel.onclick = () => {
    job.cancelled = true;
    cancel.disabled = true;
    text.textContent = `${verb}: stopping…`;
    job.abort?.();
  };
  row.append(text, bar, cancel);
  $("work").append(row);
  $("work").hidden = false;
  job.step = (done, label) => {
    bar.value = done;
    if (!job.cancelled) text.textContent = label;
  };
  job.end = () => {
    row.remove();
    $("work").hidden = $("work").childElementCount === 0;
  };
  return job;
}

// Runs `each(item)` on the items in order, showing "VERB 3 of 120" when there is more than one,
// and stops before the next item once cancelled, or at the first that fails. Answers what `each`
// answered for the items done (`done`), the items not done (`rest`, the failed one first), and
// the error if one failed: never throws, so what was done can still be undone.
async function eachWithProgress(verb, items, each) {
  const job = startJob(verb, items.length, items.length > 1);
  const done = [];
  let error = null;
  try {
    for (const item of items) {
      if (job.cancelled) break;
      job.step(done.length, `${verb} ${done.length + 1} of ${items.length}`);
      try {
        done.push(await each(item));
      } catch (failure) {
        error = failure;
        break;
      }
    }
  } finally { job.end(); }
  return { done, rest: items.slice(done.length), error };
}

// Sends `file` to the app's import, reporting the bytes sent through `sent`; answers false if
// the job was cancelled on the way.
function uploadFile(file, folder, job, sent) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `api/import?${query({ folder, name: file.name })}`);
    request.upload.onprogress = (event) => sent(event.loaded);
    request.onload = () => {
      if (request.status < 300) { resolve(true); return; }
      let message = `The app answered ${request.status}.`;
      try { message = JSON.parse(request.responseText).error.message; } catch { /* not JSON */ }
      reject(new Error(message));
    };
    request.onerror = () => reject(new Error(`“${file.name}” could not be sent to the app.`));
    request.onabort = () => resolve(false);
    job.abort = () => request.abort();
    request.send(file);
  });
}

// Imports `files` into the folder shown, one after another; a job shows the bytes sent when
// there are several files or one over a MiB.
async function importFiles(files) {
  const folder = state.folder;  // the folder shown when they were dropped, whatever is shown next
  const list = [...files];
  const total = list.reduce((sum, file) => sum + file.size, 0);
  const job = startJob("Importing", Math.max(total, 1), list.length > 1 || total > (1 << 20));
  let before = 0;
  try {
    for (const [index, file] of list.entries()) {
      if (job.cancelled) break;
      const label = list.length > 1 ? `Importing ${index + 1} of ${list.length}` : `Importing “${file.name}”`;
      job.step(before, label);
      if (!await uploadFile(file, folder, job, (loaded) => job.step(before + loaded, label))) break;
      before += file.size;
    }
  } finally { job.end(); }
}
