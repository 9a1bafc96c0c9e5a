"use strict";
// The Quire app's page, part 3: selecting in the browser as in a file manager, and acting on
// the selection through its context menu.
//
// A click selects; Ctrl+click adds or removes one, Shift+click extends from the anchor; a
// double-click or Enter opens. The arrow keys, Home and End move (Shift extends), typing a
// name's first letters selects it, Ctrl+A selects everything, Escape clears. The context menu
// (right-click, the Menu key or Shift+F10) lists every action, disabled where it does not apply
// to the selection; F2 renames, Delete moves to the Trash, Space shows it in Quick Look and
// Ctrl+I its info.

state.selected = new Set();
state.anchor = null;  // the focused item, the list's tab stop
state.rangeStart = null;  // where Shift+click and Shift+arrow ranges start
state.byPath = new Map();
state.typed = { text: "", at: 0 };

// The shown items in order, where each stands and its element, kept by `render` (browser.js):
// moving the selection costs the same in a folder of ten items as in one of ten thousand.
state.paths = [];
state.position = new Map();
state.elements = new Map();
state.marked = new Set();  // the paths whose elements show as selected
state.tabStop = null;  // the path whose element is the list's tab stop

const libraryItems = () => state.paths.map((path) => state.elements.get(path));
const elementOf = (path) => state.elements.get(path);

// Records what `render` showed: `elements` after the ones shown (`append`), or instead of them.
function indexShown(elements, append) {
  if (!append) {
    state.paths = [];
    state.position = new Map();
    state.elements = new Map();
    state.marked = new Set();
    state.tabStop = null;
  }
  for (const element of elements) {
    const path = element.dataset.path;
    state.position.set(path, state.paths.length);
    state.paths.push(path);
    state.elements.set(path, element);
    // Only the rows near the view are in the document (chunks.js): each option says where it
    // stands in the whole folder, for a screen reader.
    element.setAttribute("aria-posinset", String(state.paths.length));
    element.setAttribute("aria-setsize", String(Math.max(state.total, state.paths.length)));
  }
}

function openItem(item) {
  location.hash = item.isFolder ? `#/folder/${encodeURI(item.path)}` : `#/doc/${encodeURI(item.path)}`;
}

// Marks the selected items and keeps one tab stop in the list: the focused or anchor item.
// Only the items whose marks change are visited (all of them with `everything`, after a reload
// made the elements again): a folder of thousands re-styles two items, not all.
function showSelection(everything = false) {
  const stop = state.elements.has(state.anchor) ? state.anchor : (state.paths[0] ?? null);
  const visit = everything ? state.paths
    : new Set([...state.marked, ...state.selected, state.tabStop, stop]);
  for (const path of visit) {
    const element = state.elements.get(path);
    if (!element) continue;
    const selected = String(state.selected.has(path));
    if (element.getAttribute("aria-selected") !== selected) element.setAttribute("aria-selected", selected);
    const tabIndex = path === stop ? 0 : -1;
    if (element.tabIndex !== tabIndex) element.tabIndex = tabIndex;
  }
  state.marked = new Set([...state.selected].filter((path) => state.elements.has(path)));
  state.tabStop = stop;
  // The tab stop's rows stay drawn (chunks.js): Tab skips what is hidden.
  const stopChunk = state.elements.get(stop)?.chunk;
  if (stopChunk?.parked) unpark(stopChunk);
  showSelectionBar();
}

function select(paths, anchor) {
  state.selected = new Set(paths);
  state.anchor = anchor ?? paths[paths.length - 1] ?? null;
  state.rangeStart = state.anchor;
  showSelection();
}

// Selects from the range's start to `path` (added to the selection with `adding`), focusing it.
function extendTo(path, adding) {
  const origin = state.position.has(state.rangeStart) ? state.rangeStart : path;
  const [from, to] = [state.position.get(origin), state.position.get(path)].sort((a, b) => a - b);
  const range = state.paths.slice(from, to + 1);
  state.selected = new Set(adding ? [...state.selected, ...range] : range);
  state.rangeStart = origin;
  state.anchor = path;
  showSelection();
}

// Focuses the item, scrolling it into view unless `scroll` is false (a live reload, which keeps
// the view where the user left it).
function focusItem(path, scroll = true) {
  const element = showElement(path);  // its chunk may be parked (chunks.js)
  if (!element) return;
  element.focus({ preventScroll: true });
  if (scroll) element.scrollIntoView({ block: "nearest" });
}

function clickItem(item, event) {
  state.typed.text = "";
  if (event.shiftKey) {
    extendTo(item.path, event.ctrlKey || event.metaKey);
  } else if (event.ctrlKey || event.metaKey) {
    if (state.selected.has(item.path)) state.selected.delete(item.path); else state.selected.add(item.path);
    state.anchor = item.path;
    state.rangeStart = item.path;
    showSelection();
  } else if (event.detail === 1 && event.target.closest(".name") && state.selected.size === 1
             && state.selected.has(item.path)) {
    renameInPlace(item);  // a click on the selected item's name, as in Finder
    return;
  } else {
    select([item.path]);
  }
  focusItem(item.path);
}

// After a live reload: the selection keeps the items still shown, and focus stays in the list:
// on its item (or the one `state.refocus` names, a renamed item), else where it was, if it was
// in the list (`focus.index`), so the keyboard can go on after a move or a deletion.
function keepSelection(focus) {
  const shown = state.elements;
  state.selected = new Set([...state.selected].filter((path) => shown.has(path)));
  if (state.anchor && !shown.has(state.anchor)) state.anchor = null;
  if (state.rangeStart && !shown.has(state.rangeStart)) state.rangeStart = state.anchor;
  showSelection(true);
  if (focus.path && shown.has(focus.path)) {
    // A renamed item may have moved in the order, so it is shown; any other stays where it is.
    const renamed = state.refocus === focus.path;
    if (renamed) state.refocus = null;
    focusItem(focus.path, renamed);
  } else if (focus.index >= 0 && state.paths.length > 0 && !state.refocus) {
    const next = state.paths[Math.min(focus.index, state.paths.length - 1)];
    state.anchor = next;
    showSelection();
    focusItem(next);
  }
}

// How many items one row of the grid holds (1 in the list).
function columns() {
  return state.layout === "grid" ? state.columns : 1;
}

function moveSelection(event) {
  const paths = state.paths;
  if (paths.length === 0) return false;
  const current = state.position.get(state.anchor) ?? 0;
  const steps = {
    ArrowRight: 1, ArrowLeft: -1, ArrowDown: columns(), ArrowUp: -columns(),
    Home: -paths.length, End: paths.length,
  };
  if (!(event.key in steps)) return false;
  if (state.layout !== "grid" && (event.key === "ArrowRight" || event.key === "ArrowLeft")) return false;
  const target = Math.min(Math.max(current + steps[event.key], 0), paths.length - 1);
  if (event.shiftKey) {
    if (!state.position.has(state.rangeStart)) state.rangeStart = paths[current];
    extendTo(paths[target], false);
  } else {
    select([paths[target]]);
  }
  focusItem(paths[target]);
  return true;
}

// Type-to-select: the letters typed within a second of each other, with no other key between
// them, name the item to select.
function typeToSelect(key) {
  const now = performance.now();
  state.typed.text = now - state.typed.at < 1000 ? state.typed.text + key : key;
  state.typed.at = now;
  const wanted = state.typed.text.toLowerCase();
  const match = libraryItems().find((element) => element.dataset.name.toLowerCase().startsWith(wanted));
  if (match) { select([match.dataset.path]); focusItem(match.dataset.path); }
}

$("items").addEventListener("keydown", (event) => {
  if (!event.target.closest(".item[role=option]")) return;
  const selection = [...state.selected].map((path) => state.byPath.get(path)).filter(Boolean);
  let handled = true;
  if (moveSelection(event)) {
    // moved
  } else if (event.key === "Enter" && selection.length === 1) {
    openItem(selection[0]);
  } else if (event.key === "Escape") {
    select([], state.anchor);
  } else if (event.key === "i" && (event.ctrlKey || event.metaKey) && selection.length === 1) {
    showInfo(selection[0]);
  } else if (event.key === "a" && (event.ctrlKey || event.metaKey)) {
    select(state.paths, state.anchor);
  } else if (event.key === "F2" && selection.length === 1) {
    runAction("rename", selection);
  } else if (event.key === "Delete") {
    runAction("delete", selection);
  } else if (event.key === " ") {
    quickLook();
  } else if (event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey)) {
    const box = event.target.getBoundingClientRect();
    openMenu(box.left + 16, box.top + 16);
  } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey && event.key !== " ") {
    typeToSelect(event.key);
    event.preventDefault();
    return;
  } else {
    handled = false;
  }
  // Any other key ends what was being typed: letters typed next name a new item.
  state.typed.text = "";
  if (handled) event.preventDefault();
});

// One listener for the clicks on all the library's items, not two made with each item.
const clickedItem = (event) => {
  const element = event.target.closest(".item[role=option]");
  return element ? state.byPath.get(element.dataset.path) : undefined;
};
$("items").addEventListener("click", (event) => {
  const item = clickedItem(event);
  if (item) clickItem(item, event);
});
$("items").addEventListener("dblclick", (event) => {
  const item = clickedItem(event);
  if (item) openItem(item);
});

$("items").addEventListener("contextmenu", (event) => {
  const element = event.target.closest(".item[role=option]");
  if (!element) return;
  event.preventDefault();
  if (!state.selected.has(element.dataset.path)) select([element.dataset.path]);
  element.focus();
  openMenu(event.clientX, event.clientY);
});
