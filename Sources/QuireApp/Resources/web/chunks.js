"use strict";
// The Quire app's page: a folder's items in chunks of whole rows. One grid of thousands of items
// is laid out again whole whenever a page of the listing is added (Chromium sizes and places
// every item of a grid each time): a scroll through 7 600 items spent 150 ms a frame on it. In
// chunks of `chunkRows` rows, each a grid of its own with the same columns, an added page lays
// out the last chunk (an item out of view is not drawn: `content-visibility` in style.css).

// Rows per chunk: small enough to lay out within a frame, large enough to keep chunks few.
const chunkRows = 12;
state.columns = 1;

function newChunk() {
  const chunk = document.createElement("div");
  chunk.className = "chunk";
  chunk.setAttribute("role", "none");  // the listbox's options stay its own, as before
  return chunk;
}

// How many items a row holds: the columns of the list's grid (1 in the list layout).
function measureColumns(list) {
  if (!list.classList.contains("grid")) return 1;
  const existing = list.querySelector(":scope > .chunk");
  const probe = existing ?? list.appendChild(newChunk());
  const count = getComputedStyle(probe).gridTemplateColumns.split(" ").filter(Boolean).length;
  if (!existing) probe.remove();
  return Math.max(1, count || 1);
}

// Puts `elements` in `list`: in place of what it showed, or after it (`append`), filling its
// last chunk first, so every chunk but the last holds whole rows.
function placeItems(list, elements, append) {
  if (!append) state.columns = measureColumns(list);
  const size = state.columns * chunkRows;
  const chunks = [];
  let last = append ? list.lastElementChild : null;
  let at = 0;
  if (last) {
    const room = size - last.childElementCount;
    if (room > 0) {
      last.append(...elements.slice(0, room));
      at = room;
    }
  }
  for (; at < elements.length; at += size) {
    const chunk = newChunk();
    chunk.append(...elements.slice(at, at + size));
    chunks.push(chunk);
  }
  if (append) list.append(...chunks);
  else list.replaceChildren(...chunks);
}

// The window was resized and the grid's rows hold another number of items: the chunks are made
// again with the same elements, in the same order.
new ResizeObserver(() => {
  const list = $("items");
  // A rename's field would lose its focus, and end the rename; the reload after it re-chunks.
  if (state.renaming || !list.classList.contains("grid") || state.paths.length === 0) return;
  if (measureColumns(list) === state.columns) return;
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  placeItems(list, state.paths.map((path) => state.elements.get(path)), false);
  focused?.focus({ preventScroll: true });  // an element moved to another chunk loses its focus
}).observe($("items"));
