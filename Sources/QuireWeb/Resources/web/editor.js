"use strict";
// The Quire app's page, part 3: the editors (#/doc/PATH).

// The body says when the editor shows, for its layout (style.css). `body:has(#editor:not([hidden]))`
// said it too, but made Chromium look at the page's style again whenever any element's `hidden`
// changed: a note's first lines shown, many times a frame while a long folder scrolls.
new MutationObserver(() => document.body.classList.toggle("editing", !$("editor").hidden))
  .observe($("editor"), { attributes: true, attributeFilter: ["hidden"] });

// Opens the editor on the document at `path` in the library, or (with `handle`) on a document
// `quire open` already opened in place, wherever it is.
async function showEditor(path, handle) {
  $("browser").hidden = true;
  $("browser-tools").hidden = true;
  $("editor").hidden = false;
  $("crumbs").replaceChildren();
  for (const id of ["mydoc-editor", "album-editor", "text", "conflict"]) $(id).hidden = true;
  docTitle.textContent = path ? path.split("/").pop() : "";
  const opening = $("opening");
  opening.removeAttribute("value");  // indeterminate, unless a download shows how far it is
  opening.hidden = false;
  // A document in the cloud is downloaded before it opens: its percent fills the bar.
  const watch = path && setInterval(async () => {
    try {
      const item = await get(`api/item?${query({ path })}`);
      if (item.percent !== undefined && item.percent !== null && item.sync !== "current") {
        opening.max = 100;
        opening.value = item.percent;
        opening.dataset.percent = Math.round(item.percent);
      }
    } catch { /* the item may be moving; the open reports real errors */ }
  }, 200);
  try {
    const doc = handle
      ? await get(`api/documents/state?${query({ handle })}`)
      : await post("api/documents/open", { path });
    state.doc = doc;
    state.pendingText = null;
    apply(doc, true);
    // Opened from a conflict badge (the versions in conflict side by side, to choose) or from
    // the menu's Versions….
    if (state.afterOpen === "compare") await attempt(compareVersions);
    if (state.afterOpen === "versions") await attempt(showVersions);
  } catch (error) {
    showError(error);
  } finally {
    state.afterOpen = null;
    if (watch) clearInterval(watch);
    opening.hidden = true;
    delete opening.dataset.percent;
  }
}

// Shows the document's state; the text is replaced only when the user has nothing unsent.
function apply(doc, force) {
  if (!state.doc || doc.handle !== state.doc.handle) return;
  const imageChanged = force || doc.version !== state.doc.version;
  state.doc = doc;
  docTitle.textContent = doc.name;  // the button, in the page or not while renamed
  // Only a writable document of the library is renamed from its title.
  docTitle.disabled = doc.readOnly || doc.path.startsWith("/");
  docTitle.title = docTitle.disabled ? "" : "Rename (click, Enter or F2)";
  $("lock").hidden = !doc.readOnly;
  $("undo").disabled = !doc.canUndo || doc.readOnly;
  $("redo").disabled = !doc.canRedo || doc.readOnly;
  $("undo").title = doc.undoName ? `Undo ${doc.undoName} (Ctrl+Z)` : "Undo (Ctrl+Z)";
  const labels = { saved: "Saved", edited: "Edited", saving: "Saving…", error: `Not saved: ${doc.error}`, conflict: "Changed on disk" };
  const status = state.pendingText !== null ? "edited" : doc.status;
  $("status").textContent = labels[status] || status;
  $("status").dataset.status = status;
  $("retry").hidden = doc.status !== "error";
  $("conflict").hidden = doc.status !== "conflict";
  $("conflict-message").textContent = conflictMessage(doc);
  const text = $("text");
  if (doc.kind === "mydoc" || doc.kind === "text") {
    text.hidden = false;
    text.readOnly = doc.readOnly;
    if (state.pendingText === null && text.value !== doc.text) text.value = doc.text;
  }
  if (doc.kind === "mydoc") {
    $("mydoc-editor").hidden = false;
    $("image-button").disabled = doc.readOnly;
    if (imageChanged) {
      $("doc-image").hidden = !doc.hasImage;
      $("no-image").hidden = doc.hasImage;
      if (doc.hasImage) $("doc-image").src = `api/documents/image?${query({ handle: doc.handle, v: doc.version })}`;
    }
  }
  if (doc.kind === "album") {
    $("album-editor").hidden = false;
    renderAlbum(doc);
  }
}

// Why the document is in conflict: a WebDAV lock that kept this device's edits aside, devices
// that edited it at the same time, or another program on this device.
function conflictMessage(doc) {
  const locks = doc.conflictLocks || [];
  const devices = doc.conflictDevices || [];
  if (locks.length) {
    return `Locked by ${locks.join(", ")} in another app over WebDAV when you saved: your changes were not applied to the shared copy, and are kept as a version until you choose.`;
  }
  if (devices.length) {
    return `${devices.join(", ")} changed this document at the same time. The newer edit is shown; the other is kept as a version until you choose.`;
  }
  return "This document changed on disk while you had unsaved edits. Both versions are kept until you choose.";
}

function renderAlbum(doc) {
  $("album").replaceChildren(...doc.images.map((name) => {
    const li = document.createElement("li");
    li.className = "item";
    li.dataset.name = name;
    const open = document.createElement("button");
    open.type = "button";
    open.className = "open";
    const label = document.createElement("div");
    label.className = "name";
    label.textContent = name;
    const preview = document.createElement("img");
    preview.loading = "lazy";
    preview.alt = name;
    preview.src = `api/documents/image?${query({ handle: doc.handle, name, thumbnail: 1, v: doc.version })}`;
    open.append(preview, label);
    open.onclick = () => {
      // The full image is loaded only when opened.
      $("viewer-image").src = `api/documents/image?${query({ handle: doc.handle, name, v: doc.version })}`;
      $("viewer").showModal();
    };
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Remove";
    remove.disabled = doc.readOnly;
    remove.onclick = () => attempt(async () => apply(await post("api/documents/remove-image", { handle: doc.handle, name })));
    li.append(open, remove);
    return li;
  }));
}
$("viewer-close").onclick = () => $("viewer").close();

async function sendText() {
  clearTimeout(state.typingTimer);
  if (state.pendingText === null || !state.doc) return;
  const text = state.pendingText;
  state.pendingText = null;
  apply(await post("api/documents/edit", { handle: state.doc.handle, text }));
}
$("text").oninput = () => {
  state.pendingText = $("text").value;
  $("status").textContent = "Edited";
  $("status").dataset.status = "edited";
  clearTimeout(state.typingTimer);
  // A pause in typing ends one undoable change.
  state.typingTimer = setTimeout(() => attempt(sendText), 400);
};

async function undoRedo(which) {
  await sendText();
  apply(await post(`api/documents/${which}`, { handle: state.doc.handle }), true);
  $("text").value = state.doc.text ?? "";
}
$("undo").onclick = () => attempt(() => undoRedo("undo"));
$("redo").onclick = () => attempt(() => undoRedo("redo"));
// The browser's conventions in the editors too: Ctrl+S saves now (the document still saves
// itself), Escape or Ctrl+W goes back to the browser (Escape first closes an open dialog), and
// Ctrl+Z and Ctrl+Shift+Z (or Ctrl+Y) undo and redo.
async function saveNow() {
  await sendText();
  apply(await post("api/documents/save", { handle: state.doc.handle }));
}
document.addEventListener("keydown", (event) => {
  if ($("editor").hidden || !state.doc) return;
  if (event.key === "Escape" && !document.querySelector("dialog[open]")) {
    event.preventDefault();
    $("done").click();
    return;
  }
  if (!(event.ctrlKey || event.metaKey)) return;
  const key = event.key.toLowerCase();
  if (key === "s") { event.preventDefault(); attempt(saveNow); }
  if (key === "w") { event.preventDefault(); $("done").click(); }
  if (key === "z" && !event.shiftKey) { event.preventDefault(); attempt(() => undoRedo("undo")); }
  if ((key === "z" && event.shiftKey) || key === "y") { event.preventDefault(); attempt(() => undoRedo("redo")); }
});
$("retry").onclick = () => attempt(async () => apply(await post("api/documents/save", { handle: state.doc.handle })));
for (const [id, choice] of [["keep-mine", "mine"], ["keep-other", "other"], ["keep-both", "both"]]) {
  $(id).onclick = () => attempt(async () => {
    state.pendingText = null;
    apply(await post("api/documents/resolve", { handle: state.doc.handle, choice }), true);
    $("text").value = state.doc.text ?? "";
  });
}
$("image-button").onclick = () => $("image-input").click();
$("image-input").onchange = () => attempt(async () => {
  const file = $("image-input").files[0];
  if (!file) return;
  apply(await post(`api/documents/image?${query({ handle: state.doc.handle, name: file.name })}`, undefined, file), true);
  $("image-input").value = "";
});
$("album-input").onchange = () => attempt(async () => {
  for (const file of $("album-input").files) {
    apply(await post(`api/documents/image?${query({ handle: state.doc.handle, name: file.name })}`, undefined, file), true);
  }
  $("album-input").value = "";
});

async function closeEditor() {
  if (!state.doc) return;
  const doc = state.doc;
  await attempt(sendText);
  state.doc = null;
  await attempt(() => post("api/documents/close", { handle: doc.handle }));
}
$("done").onclick = () => {
  // A document opened in place outside the library goes back to the library's top.
  const inside = state.doc && !state.doc.path.startsWith("/");
  const folder = inside ? state.doc.path.split("/").slice(0, -1).join("/") : "";
  location.hash = `#/folder/${encodeURI(folder)}`;
};


// Leaving the page (closing the tab, reloading) sends what was typed since the last pause, so
// no keystroke is lost: the document then saves itself as usual.
window.addEventListener("pagehide", () => {
  if (state.pendingText === null || !state.doc) return;
  const body = JSON.stringify({ handle: state.doc.handle, text: state.pendingText });
  navigator.sendBeacon("api/documents/edit", new Blob([body], { type: "application/json" }));
  state.pendingText = null;
});
