"use strict";
// The Quire app's page, part 2: the document browser (#/folder/PATH).

function sizeText(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}

// Extensions of the document types the app knows are hidden, as Apple's browser hides them
// (the View menu's "Show extensions" shows them); a long name is cut in the middle, so its start
// and its end (a number, a date) both show ("Trip to Lis…bon 3"), the full name in a tooltip.
const knownExtensions = [".mydoc", ".txt", ".album", ".sicd"];
function displayName(item) {
  let name = item.name;
  const extension = knownExtensions.find((ext) => name.toLowerCase().endsWith(ext));
  if (!item.isFolder && extension && !state.showExtensions && name.length > extension.length) {
    name = name.slice(0, -extension.length);
  }
  const most = state.layout === "grid" ? 18 : 48;
  const characters = [...name];
  if (characters.length <= most) return name;
  const head = Math.ceil((most - 1) / 2);
  return characters.slice(0, head).join("") + "…" + characters.slice(characters.length - (most - 1 - head)).join("");
}

// Dates as `toLocaleString` writes them, or shorter (`short`: the grid's cells), each with one
// formatter: `toLocaleString` makes one a call, which was most of the script time of an item.
const dateFormats = {
  long: new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric",
  }),
  short: new Intl.DateTimeFormat(undefined, { dateStyle: "short", timeStyle: "short" }),
};
const dateText = (milliseconds, length = "long") => dateFormats[length].format(new Date(milliseconds));

// An item's kind, date and size, as a line (Quick Look), or two short ones (`inCell`: the
// grid's cells, of a fixed size; the list has columns).
function metaText(item, inCell = false) {
  if (item.isFolder) return "Folder";
  const kind = kindName(item), size = sizeText(item.size);
  return inCell ? `${dateText(item.modified, "short")}\n${kind} · ${size}` : `${kind} · ${dateText(item.modified)} · ${size}`;
}

// One item: in the library an option of the list (selected by a click, opened by a double-click
// or Enter; selection.js), in Recents a button that opens it.
function itemElement(item, inLibrary) {
  const li = document.createElement("li");
  li.className = "item";
  li.dataset.path = item.path;
  li.dataset.name = item.name;
  // The library query carries each item's sync state (DocumentQuery's ubiquitous attributes),
  // live: the badges show it (badges.js), and these attributes let the tests read it.
  if (item.sync && item.sync !== "current") {
    li.dataset.sync = item.sync;
    li.title = item.syncError || syncWords[item.sync] || item.sync;
    if (item.sync === "downloading" && item.percent !== undefined && item.percent !== null) {
      li.dataset.percent = Math.round(item.percent);
    }
  }
  if (item.conflicts) li.dataset.conflicts = "true";
  if (item.shared) {
    li.dataset.shared = item.shared;
    if (item.owner) li.dataset.owner = item.owner;
  }
  const box = thumb(item);
  if (!inLibrary) showThumbnails([box]);
  const name = document.createElement("div");
  name.className = "name";
  name.textContent = displayName(item);
  name.title = item.name;
  const meta = document.createElement("div");
  meta.className = "meta";
  meta.textContent = metaText(item, true);
  // Only what shows is made: most items have no tags and no badge.
  const parts = [name, meta];
  if (item.tags.length > 0) {
    const tags = document.createElement("div");
    tags.className = "tags";
    for (const tag of item.tags) {
      const span = document.createElement("span");
      span.textContent = tag;
      tags.appendChild(span);
    }
    parts.push(tags);
  }
  const inList = inLibrary && state.layout === "list";
  const made = inList ? null : syncBadges(item, false);
  const badges = made?.childElementCount > 0 ? made : null;
  if (inLibrary && !inList) {
    // The library's grid: the item's parts are its own children, in a cell of a fixed size
    // (style.css), with no wrappers to style and lay out.
    li.append(box, ...parts);
    if (badges) li.append(badges);
  } else {
    const open = document.createElement(inLibrary ? "div" : "button");
    open.className = "open";
    const text = document.createElement("div");
    text.append(...parts);
    open.append(box, text);
    if (inList) open.append(...listCells(item));
    else if (badges) open.appendChild(badges);
    li.appendChild(open);
    if (!inLibrary) {
      open.type = "button";
      open.title = item.name;
      open.onclick = () => openItem(item);
    }
  }
  if (inLibrary) {
    li.setAttribute("role", "option");
    li.draggable = true;
    if (item.isFolder) li.dataset.folder = "true";
    li.setAttribute("aria-selected", String(state.selected.has(item.path)));
    li.tabIndex = -1;  // clicks and double-clicks: one listener for all (selection.js)
  }
  return li;
}

function listAt(offset, limit = 200) {
  return listPath({
    folder: state.folder, sort: state.sort, order: state.order, q: $("search").value.trim(),
    kind: $("kind").value, tag: $("tag-filter").value.trim(), offset, limit,
  });
}

// Loads what is shown again (at least the first page), keeping the elements of items that did
// not change (so only the difference moves), and animating the new ones in.
async function reload() {
  if (state.renaming) return;  // the field would go; the rename reloads when it is done
  state.reloading = true;
  try {
    const listing = await get(listAt(0, Math.min(1000, Math.max(200, state.offset))));
    // A rename began while the list was asked for: drawing it would take the field away (its
    // item made again, or the focus put back on the list). The rename reloads when it is done.
    if (state.renaming) return;
    const generation = ++state.generation;  // a page still being drawn belongs to the list this replaces
    state.listedVersion = listing.version;
    state.total = listing.total;
    state.offset = listing.items.length;
    // A new list is drawn a slice per frame, its first slice at once; a live reload of a list
    // already shown is drawn whole, since its elements are kept and only the difference moves.
    if (state.shown.size === 0) await drawInSlices(listing.items, false, generation);
    else render(listing.items, false);
  } finally { state.reloading = false; }
  // The event stream started after this listing was made, and the library changed in between.
  if (state.listedVersion < state.streamVersion) { attempt(reload); return; }
  loadRecents();
  attempt(loadPlaces);
  await fillViewport();
}

// A new folder, search, filter or order: from the first page.
function restart() {
  state.generation += 1;  // what is still being drawn of the list before is dropped
  state.offset = 0;
  state.total = 0;
  return reload();
}

async function loadMore() {
  if (state.loading || state.reloading || state.renaming || state.offset === 0 || state.offset >= state.total) return;
  state.loading = true;
  const generation = state.generation;
  try {
    const next = state.nextPage;
    state.nextPage = null;
    const ahead = next?.generation === generation && next.offset === state.offset;
    const listing = await (ahead ? next.answer : get(listAt(state.offset)));
    if (generation !== state.generation) return;  // a reload answered first, and holds this page
    if (state.renaming) return;  // the reload after the rename draws this page again
    state.offset += listing.items.length;
    state.total = listing.total;
    // The page after is asked for before this one is drawn, so a view scrolled on fast finds it
    // here instead of waiting a round trip for it.
    if (state.offset < state.total) {
      const answer = get(listAt(state.offset));
      answer.catch(() => {});  // asked for again, and reported, if it is wanted
      state.nextPage = { generation, offset: state.offset, answer };
    }
    if (!await drawInSlices(listing.items, true, generation)) return;
  } finally { state.loading = false; }
  await fillViewport();
}

// Draws `items` a slice per frame, after what is shown (`append`) or in its place, so a scroll
// or an opening folder never waits for a whole page to be made. False when a reload replaced the
// list meanwhile (`state.generation` moved on), and the rest is dropped.
async function drawInSlices(items, append, generation) {
  for (let at = 0; at === 0 || at < items.length; at += pageSlice) {
    if (at > 0) await new Promise((resolve) => requestAnimationFrame(resolve));
    if (generation !== state.generation || state.renaming) return false;
    render(items.slice(at, at + pageSlice), append || at > 0);
  }
  return true;
}
// Items made in one frame: about 0.2 ms each, so a slice stays well within a 16 ms frame.
const pageSlice = 40;
state.generation = 0;

// Still at the bottom (a short page, a fast scroll, a scroll during a reload): the observer
// will not fire again by itself.
async function fillViewport() {
  if (!$("browser").hidden && $("sentinel").getBoundingClientRect().top < window.innerHeight) {
    await loadMore();
  }
}

function render(items, append) {
  const list = $("items");
  const active = document.activeElement?.closest?.("#items .item");
  const focus = { path: state.refocus || active?.dataset.path, index: active ? (state.position.get(active.dataset.path) ?? -1) : -1 };
  if (!append) state.byPath = new Map();
  for (const item of items) state.byPath.set(item.path, item);
  const previous = state.shown;
  const next = append ? state.shown : new Map();
  const elements = [];
  for (const item of items) {
    const key = `${item.path}|${item.modified}|${item.tags.join(",")}|${item.size}|${item.sync}|${item.conflicts}|${item.syncError}|${Math.round(item.percent ?? 100)}|${item.shared}|${state.layout}|${state.showExtensions}`;
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
    elements.push(element);
  }
  placeItems(list, elements, append);
  state.shown = next;
  indexShown(elements, append);
  // A page added below changes no mark (its items were made with theirs), nor the selection's
  // toolbar, unless it brings the list's first item (the tab stop); a reload keeps the selection
  // and the focus on what is still shown.
  if (!append) keepSelection(focus);
  else if (state.tabStop === null) showSelection();
  // The frame that first shows the folder's items, for `quire-bench app-ui`.
  if (state.paths.length > 0 && performance.getEntriesByName("quire:first-items").length === 0) {
    requestAnimationFrame(() => performance.mark("quire:first-items"));
  }
  $("empty").hidden = state.paths.length > 0;
}

async function loadRecents() {
  if (state.folder !== "" || $("search").value) { $("recents-section").hidden = true; return; }
  const recents = await get("api/recents");
  $("recents-section").hidden = recents.items.length === 0;
  $("recents").replaceChildren(...recents.items.slice(0, 8).map((item) => itemElement(item, false)));
}

function showBrowser(folder) {
  state.cancelRename?.();  // a rename left open in the folder before
  closeEditor();
  state.folder = folder;
  loadView(folder);
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
    link.dataset.folder = target;
    return link;
  }));
  state.shown = new Map();
  state.selected = new Set();
  state.anchor = null;
  $("items").replaceChildren();
  indexShown([], false);
  attempt(restart);
}

state.showExtensions = localStorage.getItem("quire.showExtensions") === "true";
$("show-extensions").checked = state.showExtensions;
$("show-extensions").onchange = () => {
  state.showExtensions = $("show-extensions").checked;
  localStorage.setItem("quire.showExtensions", String(state.showExtensions));
  attempt(reload);
};
$("kind").onchange = () => attempt(restart);
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

$("import").onchange = () => attempt(async () => {
  const files = [...$("import").files];
  $("import").value = "";
  await importFiles(files);
});
// Files from the desktop, not items dragged within the page (dragging.js).
const bringsFiles = (event) => event.dataTransfer && [...event.dataTransfer.types].includes("Files");
document.addEventListener("dragover", (event) => {
  if (!$("browser").hidden && bringsFiles(event)) { event.preventDefault(); $("drop").hidden = false; }
});
$("drop").addEventListener("dragleave", () => { $("drop").hidden = true; });
document.addEventListener("drop", (event) => {
  if ($("browser").hidden || !bringsFiles(event)) return;
  event.preventDefault();
  $("drop").hidden = true;
  const files = [...event.dataTransfer.files];  // the drop's files go with its event
  attempt(() => importFiles(files));
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
    restore.onclick = () => attempt(async () => { await putBack(entry.trashed); li.remove(); });
    li.append(label, restore);
    return li;
  }));
  if (trash.items.length === 0) $("trash-list").textContent = "The Trash has nothing from this library.";
  $("trash-dialog").showModal();
});
$("trash-close").onclick = () => $("trash-dialog").close();

