"use strict";
// The Quire app's page: renaming in place, as Finder and the Files app do. The name becomes a
// field with its name selected, not its extension; where the browser hides a known extension
// the field hides it too, and the extension is kept. Enter or leaving the field renames; Escape
// keeps the old name.

// The extension the field keeps out of sight: a known one, while extensions are hidden.
function hiddenExtension(name, isFolder) {
  if (isFolder || state.showExtensions) return "";
  const extension = knownExtensions.find((ext) => name.toLowerCase().endsWith(ext));
  return extension && name.length > extension.length ? name.slice(name.length - extension.length) : "";
}

// Puts a field in place of `label` to edit `name`; `done(newName)` gets the new whole name, or
// null when nothing changed or the edit was cancelled. A double-click in the field cancels it
// and calls `doubleClick` (the click that began it was the first of a double-click: open).
function editName(label, name, isFolder, done, doubleClick) {
  const hidden = hiddenExtension(name, isFolder);
  const shown = name.slice(0, name.length - hidden.length);
  const field = document.createElement("input");
  field.className = "rename-field";
  field.value = shown;
  field.setAttribute("aria-label", `New name for ${name}`);
  field.spellcheck = false;
  label.replaceWith(field);
  const dot = isFolder ? -1 : shown.lastIndexOf(".");
  field.focus();
  field.setSelectionRange(0, dot > 0 ? dot : shown.length);
  let finished = false;
  const finish = (keep) => {
    if (finished) return;
    finished = true;
    field.replaceWith(label);
    let typed = field.value.trim();
    // "Memo.txt" typed where ".txt" is hidden means "Memo.txt", not "Memo.txt.txt".
    if (hidden && typed.toLowerCase().endsWith(hidden.toLowerCase())) typed = typed.slice(0, -hidden.length);
    const renamed = typed ? typed + hidden : "";
    done(keep && renamed && renamed !== name ? renamed : null);
  };
  field.addEventListener("keydown", (event) => {
    event.stopPropagation();  // the list's keys (type-to-select, Delete, arrows) are the field's now
    if (event.key === "Enter") { event.preventDefault(); finish(true); }
    if (event.key === "Escape") { event.preventDefault(); finish(false); }
  });
  for (const kind of ["click", "mousedown"]) field.addEventListener(kind, (event) => event.stopPropagation());
  field.addEventListener("dblclick", (event) => {
    event.stopPropagation();
    finish(false);
    if (doubleClick) doubleClick();
  });
  field.addEventListener("blur", () => finish(true));
}

// Renames the library item in place. Live reloads and further pages wait until the field is
// done, then the list is loaded again; leaving the folder cancels the rename
// (`state.cancelRename`).
function renameInPlace(item) {
  const element = showElement(item.path);
  const label = element?.querySelector(".name");
  if (!label || state.renaming) return;
  state.renaming = true;
  element.draggable = false;
  let cancelled = false;
  state.cancelRename = () => { cancelled = true; document.activeElement?.blur?.(); };
  editName(label, item.name, item.isFolder, (name) => {
    state.renaming = false;
    state.cancelRename = null;
    element.draggable = true;
    if (cancelled) return;
    focusItem(item.path);
    attempt(async () => {
      try {
        if (name) await renameItem(item.path, name);
      } finally {
        await reload();
      }
    });
  }, () => openItem(item));
}

// The editor's title is a button that renames the open document (its presenter follows the
// move): a click, Enter, Space or F2 puts the field in its place, and the button comes back.
const docTitle = $("doc-title");  // held here: while renamed, the field takes its place
docTitle.addEventListener("click", () => {
  const doc = state.doc;
  // editor.js disables the title of a document that is not renamed here (read-only, or one
  // `quire open` opened from outside the library); F2's click() does nothing on it either.
  if (!doc || docTitle.disabled || !docTitle.isConnected) return;
  // The file's name (the title is the localized name, which hides the extension).
  editName(docTitle, doc.path.split("/").pop(), false, (name) => {
    docTitle.textContent = doc.name;
    docTitle.focus();
    if (!name) return;
    attempt(async () => {
      const { path } = await post("api/rename", { path: doc.path, name });
      if (state.doc?.handle !== doc.handle) return;  // the editor was closed meanwhile
      history.replaceState(null, "", `#/doc/${encodeURI(path)}`);
      apply(await get(`api/documents/state?${query({ handle: doc.handle })}`), false);
    });
  });
});
docTitle.addEventListener("keydown", (event) => {
  if (event.key === "F2") {
    event.preventDefault();
    docTitle.click();
  }
});
