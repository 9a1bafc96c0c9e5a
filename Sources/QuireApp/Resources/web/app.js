"use strict";
// The Quire app's page: a document browser (#/folder/PATH) and the editors (#/doc/PATH), over
// the JSON API of the `quire app` server, kept live by its event stream.

const $ = (id) => document.getElementById(id);
const state = {
  folder: "", layout: "grid", offset: 0, total: 0, loading: false, shown: new Map(),
  doc: null, pendingText: null, typingTimer: null, reloadTimer: null,
};
const icons = { mydoc: "MyDoc", text: "Text", album: "Album", folder: "Folder", other: "File" };

// MARK: API

async function call(method, path, body, raw) {
  const options = { method, headers: {} };
  if (raw) { options.body = raw; } else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) {
    throw new Error(data && data.error ? data.error.message : `The server answered ${response.status}.`);
  }
  return data;
}
const get = (path) => call("GET", path);
const post = (path, body, raw) => call("POST", path, body, raw);
const query = (params) => new URLSearchParams(params).toString();

function showError(error) {
  $("message-text").textContent = error.message || String(error);
  $("message").hidden = false;
}
$("message-close").onclick = () => { $("message").hidden = true; };
async function attempt(action) {
  try { return await action(); } catch (error) { showError(error); }
}

// MARK: Browser

function sizeText(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}

function thumb(item) {
  const box = document.createElement("div");
  box.className = "thumb";
  const glyph = document.createElement("span");
  glyph.textContent = icons[item.kind] || icons.other;  // the placeholder, at once
  glyph.className = `glyph ${item.kind}`;
  box.appendChild(glyph);
  if (!item.isFolder && item.kind !== "other") {
    const image = document.createElement("img");
    image.loading = "lazy";  // only what scrolls into view is fetched
    image.alt = "";
    image.className = "pending";
    image.onload = () => { glyph.remove(); image.className = ""; };
    image.onerror = () => image.remove();
    image.src = `api/thumbnail?${query({ path: item.path, v: item.modified })}`;
    box.appendChild(image);
  }
  return box;
}

function itemElement(item, withActions) {
  const li = document.createElement("li");
  li.className = "item";
  li.dataset.path = item.path;
  li.dataset.name = item.name;
  const open = document.createElement("button");
  open.className = "open";
  open.type = "button";
  open.title = item.path;
  open.appendChild(thumb(item));
  const text = document.createElement("div");
  const name = document.createElement("div");
  name.className = "name";
  name.textContent = item.name;
  const meta = document.createElement("div");
  meta.className = "meta";
  const kinds = { mydoc: "MyDoc", text: "Text", album: "Album" };
  meta.textContent = item.isFolder ? "Folder" :
    `${kinds[item.kind] || "File"} · ${new Date(item.modified).toLocaleString()} · ${sizeText(item.size)}`;
  const tags = document.createElement("div");
  tags.className = "tags";
  for (const tag of item.tags) {
    const span = document.createElement("span");
    span.textContent = tag;
    tags.appendChild(span);
  }
  text.append(name, meta, tags);
  open.appendChild(text);
  open.onclick = () => {
    location.hash = item.isFolder ? `#/folder/${encodeURI(item.path)}` : `#/doc/${encodeURI(item.path)}`;
  };
  li.appendChild(open);
  if (withActions) li.appendChild(actions(item));
  return li;
}

function actions(item) {
  const bar = document.createElement("div");
  bar.className = "actions";
  const add = (label, handler) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.dataset.action = label.toLowerCase();
    button.onclick = (event) => { event.stopPropagation(); attempt(handler); };
    bar.appendChild(button);
  };
  add("Rename", async () => {
    const name = prompt("New name", item.name);
    if (name && name !== item.name) await post("api/rename", { path: item.path, name });
  });
  add("Move", async () => {
    const folder = prompt("Move to folder (a path in the library, empty for the top)", "");
    if (folder !== null) await post("api/move", { path: item.path, folder });
  });
  if (!item.isFolder) add("Duplicate", () => post("api/duplicate", { path: item.path }));
  add("Tag", async () => {
    const tags = prompt("Tags, separated by commas", item.tags.join(", "));
    if (tags !== null) {
      await post("api/tag", { path: item.path, tags: tags.split(",").map((t) => t.trim()).filter(Boolean) });
    }
  });
  if (!item.isFolder) {
    add("Export", async () => {
      const link = document.createElement("a");
      link.href = `api/export?${query({ path: item.path })}`;
      link.download = item.kind === "text" ? item.name : `${item.name}.zip`;
      link.click();
    });
  }
  add("Delete", () => post("api/delete", { path: item.path }));
  return bar;
}

function listParams(offset, limit = 200) {
  return query({
    folder: state.folder, sort: $("sort").value, q: $("search").value.trim(),
    kind: $("kind").value, tag: $("tag-filter").value.trim(), offset, limit,
  });
}

// Loads what is shown again (at least the first page), keeping the elements of items that did
// not change (so only the difference moves), and animating the new ones in.
async function reload() {
  state.reloading = true;
  try {
    const listing = await get(`api/list?${listParams(0, Math.min(1000, Math.max(200, state.offset)))}`);
    state.total = listing.total;
    state.offset = listing.items.length;
    render(listing.items, false);
  } finally { state.reloading = false; }
  loadRecents();
  await fillViewport();
}

// A new folder, search, filter or order: from the first page.
function restart() {
  state.offset = 0;
  state.total = 0;
  return reload();
}

async function loadMore() {
  if (state.loading || state.reloading || state.offset === 0 || state.offset >= state.total) return;
  state.loading = true;
  try {
    const listing = await get(`api/list?${listParams(state.offset)}`);
    state.offset += listing.items.length;
    state.total = listing.total;
    render(listing.items, true);
  } finally { state.loading = false; }
  await fillViewport();
}

// Still at the bottom (a short page, a fast scroll, a scroll during a reload): the observer
// will not fire again by itself.
async function fillViewport() {
  if (!$("browser").hidden && $("sentinel").getBoundingClientRect().top < window.innerHeight) {
    await loadMore();
  }
}

function render(items, append) {
  const list = $("items");
  const previous = state.shown;
  const next = append ? state.shown : new Map();
  const fragment = document.createDocumentFragment();
  for (const item of items) {
    const key = `${item.path}|${item.modified}|${item.tags.join(",")}|${item.size}`;
    let element = previous.get(key);
    if (!element || append) {
      element = itemElement(item, true);
      element.dataset.key = key;
      if (previous.size > 0 && !append) {
        element.classList.add("appearing");
        requestAnimationFrame(() => requestAnimationFrame(() => element.classList.remove("appearing")));
      }
    }
    next.set(key, element);
    fragment.appendChild(element);
  }
  if (!append) list.replaceChildren(fragment); else list.appendChild(fragment);
  state.shown = next;
  $("empty").hidden = list.children.length > 0;
}

async function loadRecents() {
  if (state.folder !== "" || $("search").value) { $("recents-section").hidden = true; return; }
  const recents = await get("api/recents");
  $("recents-section").hidden = recents.items.length === 0;
  $("recents").replaceChildren(...recents.items.slice(0, 8).map((item) => itemElement(item, false)));
}

function showBrowser(folder) {
  closeEditor();
  state.folder = folder;
  $("browser").hidden = false;
  $("editor").hidden = true;
  $("browser-tools").hidden = false;
  $("folder-title").textContent = folder ? folder.split("/").pop() : "Library";
  const crumbs = [["Library", ""]];
  let path = "";
  for (const part of folder ? folder.split("/") : []) {
    path = path ? `${path}/${part}` : part;
    crumbs.push([part, path]);
  }
  $("crumbs").replaceChildren(...crumbs.map(([label, target]) => {
    const link = document.createElement("a");
    link.href = `#/folder/${encodeURI(target)}`;
    link.textContent = label;
    return link;
  }));
  state.shown = new Map();
  $("items").replaceChildren();
  attempt(restart);
}

$("items").className = "items grid";
$("layout").onclick = () => {
  state.layout = state.layout === "grid" ? "list" : "grid";
  $("items").className = `items ${state.layout}`;
  $("layout").textContent = state.layout === "grid" ? "List" : "Grid";
};
for (const id of ["sort", "kind"]) $(id).onchange = () => attempt(restart);
for (const id of ["search", "tag-filter"]) {
  $(id).oninput = () => { clearTimeout(state.reloadTimer); state.reloadTimer = setTimeout(() => attempt(restart), 150); };
}
new IntersectionObserver((entries) => {
  if (entries.some((entry) => entry.isIntersecting)) attempt(loadMore);
}).observe($("sentinel"));

$("create").onclick = () => { $("create-name").value = "Document"; $("create-dialog").showModal(); };
$("create-cancel").onclick = () => $("create-dialog").close();
$("create-form").onsubmit = (event) => {
  event.preventDefault();
  $("create-dialog").close();
  attempt(async () => {
    const created = await post("api/create", {
      kind: $("create-kind").value, name: $("create-name").value.trim(), folder: state.folder,
    });
    location.hash = `#/doc/${encodeURI(created.path)}`;
  });
};
$("new-folder").onclick = () => attempt(async () => {
  const name = prompt("Folder name", "New Folder");
  if (name) await post("api/folder", { name, folder: state.folder });
});

async function importFile(file) {
  await post(`api/import?${query({ folder: state.folder, name: file.name })}`, undefined, file);
}
$("import").onchange = () => attempt(async () => {
  for (const file of $("import").files) await importFile(file);
  $("import").value = "";
});
document.addEventListener("dragover", (event) => {
  if (!$("browser").hidden) { event.preventDefault(); $("drop").hidden = false; }
});
$("drop").addEventListener("dragleave", () => { $("drop").hidden = true; });
document.addEventListener("drop", (event) => {
  if ($("browser").hidden) return;
  event.preventDefault();
  $("drop").hidden = true;
  attempt(async () => { for (const file of event.dataTransfer.files) await importFile(file); });
});

$("trash-button").onclick = () => attempt(async () => {
  const trash = await get("api/trash");
  $("trash-list").replaceChildren(...trash.items.map((entry) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.textContent = entry.original;
    const restore = document.createElement("button");
    restore.type = "button";
    restore.textContent = "Restore";
    restore.onclick = () => attempt(async () => { await post("api/restore", { trashed: entry.trashed }); li.remove(); });
    li.append(label, restore);
    return li;
  }));
  if (trash.items.length === 0) $("trash-list").textContent = "The Trash has nothing from this library.";
  $("trash-dialog").showModal();
});
$("trash-close").onclick = () => $("trash-dialog").close();

// MARK: Editor

async function showEditor(path) {
  $("browser").hidden = true;
  $("browser-tools").hidden = true;
  $("editor").hidden = false;
  $("crumbs").replaceChildren();
  for (const id of ["mydoc-editor", "album-editor", "text", "conflict"]) $(id).hidden = true;
  $("doc-title").textContent = path.split("/").pop();
  $("opening").hidden = false;
  try {
    const doc = await post("api/documents/open", { path });
    state.doc = doc;
    state.pendingText = null;
    apply(doc, true);
  } catch (error) {
    showError(error);
  } finally { $("opening").hidden = true; }
}

// Shows the document's state; the text is replaced only when the user has nothing unsent.
function apply(doc, force) {
  if (!state.doc || doc.handle !== state.doc.handle) return;
  const imageChanged = force || doc.version !== state.doc.version;
  state.doc = doc;
  $("doc-title").textContent = doc.name;
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
document.addEventListener("keydown", (event) => {
  if ($("editor").hidden || !state.doc || !(event.ctrlKey || event.metaKey)) return;
  const key = event.key.toLowerCase();
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
  const folder = state.doc ? state.doc.path.split("/").slice(0, -1).join("/") : "";
  location.hash = `#/folder/${encodeURI(folder)}`;
};

// MARK: Routing and live updates

function route() {
  const hash = decodeURI(location.hash.slice(1));
  if (hash.startsWith("/doc/")) {
    closeEditor().then(() => showEditor(hash.slice(5)));
  } else {
    showBrowser(hash.startsWith("/folder/") ? hash.slice(8) : "");
  }
}
window.addEventListener("hashchange", route);

const events = new EventSource("api/events");
events.addEventListener("library", () => {
  if ($("browser").hidden) return;
  clearTimeout(state.reloadTimer);
  state.reloadTimer = setTimeout(() => attempt(reload), 100);
});
events.addEventListener("document", (event) => {
  const { handle } = JSON.parse(event.data);
  if (!state.doc || handle !== state.doc.handle) return;
  attempt(async () => apply(await get(`api/documents/state?${query({ handle })}`)));
});
route();
