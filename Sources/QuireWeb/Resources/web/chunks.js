"use strict";
// The Quire app's page: a folder's items in chunks of whole rows, and only the chunks near the
// view in the document. One grid of thousands of items is laid out again whole whenever a page
// of the listing is added (Chromium sizes and places every item of a grid each time): a scroll
// through 7 600 items spent 150 ms a frame on it. In chunks of `chunkRows` rows, each a grid of
// its own with the same columns, an added page lays out the last chunk. A chunk more than a
// view's height away is parked: its items are taken out of the document and kept aside
// (`chunk.held`), the chunk keeping their height, so a frame costs what is near the view,
// whatever the folder's size. Parking with `content-visibility: hidden` instead cost 5 to 7 ms a
// chunk each way with 10 000 items listed (Chromium's work on a locked subtree grew with the
// page), and every chunk is parked and brought back as a fast scroll passes it. The parked
// items stay in the page's index, with their marks, so the selection, type-to-select and the
// keyboard work over the whole folder; an item brought into view (`showElement`) brings its
// chunk back first.

// Rows per chunk: small enough to lay out within a frame, large enough to keep chunks few.
const chunkRows = 3;
// The list's rows are a sixth as tall as the grid's: its chunks have six times as many, so a
// folder of thousands is not thousands of chunks for the observer to look at in every frame.
const rowsPerChunk = () => (state.rows ? chunkRows : chunkRows * 6);
state.columns = 1;

// Parks the chunks that leave the view's neighbourhood and brings back those that come near.
// Skipping chunks with `content-visibility: auto` instead was tried and dropped: until the frame
// that finds a chunk in view, a skipped chunk takes the clicks meant for its items. Here a
// chunk's items come back in the frame before it is in view, and never leave while one of them
// has the focus (the keyboard's place, or a name being edited).
const chunkWindow = new IntersectionObserver((entries) => {
  for (const { target: chunk, isIntersecting, boundingClientRect } of entries) {
    if (!isIntersecting) { near.delete(chunk); park(chunk, boundingClientRect.height); continue; }
    near.add(chunk);
    unpark(chunk);
    thumbnailsOf(chunk);
  }
}, { rootMargin: "100% 0px" });

function park(chunk, height) {
  if (chunk.parked || height === 0 || state.lassoing) return;  // a lasso's rows stay: lasso.js
  // Nor the focus's rows, nor the list's tab stop's: Tab skips what is not in the document.
  const tabStop = state.elements.get(state.tabStop);
  if (chunk.contains(document.activeElement) || (tabStop && chunk.contains(tabStop))) return;
  chunk.style.height = `${height}px`;
  chunk.parked = true;
  chunk.classList.add("parked");
  chunk.held = document.createDocumentFragment();
  chunk.held.append(...chunk.children);
}

function unpark(chunk) {
  if (!chunk?.parked) return;
  chunk.parked = false;
  chunk.classList.remove("parked");
  chunk.style.height = "";
  chunk.append(chunk.held);
  chunk.held = null;
}

// The items of a chunk, parked or not.
const chunkItems = (chunk) => (chunk.parked ? chunk.held : chunk);

// The item's element, in the document: its chunk is brought back if it was parked.
function showElement(path) {
  const element = state.elements.get(path);
  unpark(element?.chunk);
  return element;
}

function newChunk() {
  const chunk = document.createElement("div");
  chunk.className = "chunk";
  chunk.setAttribute("role", "none");  // the listbox's options stay its own, as before
  chunk.parked = false;
  chunk.held = null;
  chunkWindow.observe(chunk);
  return chunk;
}

// Puts `items` in `chunk` (kept aside with the chunk's other items if it is parked).
function fill(chunk, items) {
  chunkItems(chunk).append(...items);
  for (const item of items) item.chunk = chunk;
}

// How many items a row holds: the columns of the list's grid (1 in the list layout). The grid's
// rows have a fixed height, so a chunk's height is known before it is drawn (`state.rows`; none
// in the list, whose rows are as tall as their names).
function measureColumns(list) {
  state.rows = null;
  if (!list.classList.contains("grid")) return 1;
  const existing = list.querySelector(":scope > .chunk");
  const probe = existing ?? list.appendChild(newChunk());
  const style = getComputedStyle(probe);
  const count = style.gridTemplateColumns.split(" ").filter(Boolean).length;
  const [height, gap] = [parseFloat(style.gridAutoRows), parseFloat(style.rowGap)];
  if (height > 0 && gap >= 0) state.rows = { height, gap };
  if (!existing) probe.remove();
  return Math.max(1, count || 1);
}

// The height of a chunk of `count` items in the grid, and the distance from its top to the next's.
function chunkHeight(count) {
  const { height, gap } = state.rows;
  return Math.ceil(count / state.columns) * (height + gap) - gap;
}

// Puts `elements` in `list`: in place of what it showed, or after it (`append`), filling its
// last chunk first, so every chunk but the last holds whole rows. In place of what it showed
// (a live reload), a chunk whose place was parked, with as many items, is made parked.
function placeItems(list, elements, append) {
  if (!append) state.columns = measureColumns(list);
  // Taken now: the focused item leaves the document (and the focus with it) once its new chunk
  // takes it, and that chunk must not be parked.
  const focused = document.activeElement;
  const size = state.columns * rowsPerChunk();
  const before = append ? [] : [...list.children];
  // What was parked, and how many items it held, before the items move to their new chunks.
  const parkedBefore = before.map((chunk) => chunk.parked ? chunk.held.childElementCount : -1);
  const chunks = [];
  let last = append ? list.lastElementChild : null;
  // Where the next chunk starts, with the grid's fixed rows: one beyond the view's neighbourhood
  // is made parked, at its height, and costs no style, layout or paint until the view comes
  // near (a fast scroll draws pages ahead of it; a resize makes every chunk again). Measured
  // before anything changes, so the layout it asks for is still the last frame's.
  let next = state.rows ? (last ?? list).getBoundingClientRect().top : null;
  const far = (count) => next !== null && (next > 2 * innerHeight || next + chunkHeight(count) < -innerHeight);
  let at = 0;
  if (last) {
    const room = size - chunkItems(last).childElementCount;
    if (room > 0) {
      const added = elements.slice(0, room);
      if (last.parked && !state.rows) unpark(last);  // its height is measured, not known
      fill(last, added);
      if (last.parked) last.style.height = `${chunkHeight(last.held.childElementCount)}px`;
      // Near the view, the chunk will not be reported again: its new items' pictures are asked for.
      else thumbnailsOf(last);
      at = room;
    }
    if (next !== null) next += chunkHeight(chunkItems(last).childElementCount) + state.rows.gap;
  }
  for (; at < elements.length; at += size) {
    const chunk = newChunk();
    const items = elements.slice(at, at + size);
    fill(chunk, items);
    const old = before[chunks.length];
    if (parkedBefore[chunks.length] === items.length && !items.includes(focused)) {
      park(chunk, parseFloat(old.style.height));
    } else if (far(items.length)) {
      park(chunk, chunkHeight(items.length));
    }
    if (next !== null) next += chunkHeight(items.length) + state.rows.gap;
    chunks.push(chunk);
  }
  for (const chunk of before) { chunkWindow.unobserve(chunk); near.delete(chunk); }
  if (append) list.append(...chunks);
  else list.replaceChildren(...chunks);
}

// The window was resized and the grid's rows hold another number of items: the chunks are made
// again with the same elements, in the same order. With as many items a row, the rows still get
// taller or shorter (thumbnails are square): the parked chunks take the height of a drawn one.
let listWidth = 0;
new ResizeObserver(([entry]) => {
  const list = $("items");
  if (entry.contentRect.width === listWidth) return;  // taller or shorter only: a page added
  listWidth = entry.contentRect.width;
  // A rename's field would lose its focus, and end the rename; the reload after it re-chunks.
  if (state.renaming || !list.classList.contains("grid") || state.paths.length === 0) return;
  if (measureColumns(list) === state.columns) {
    resizeParked(list);
    return;
  }
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  placeItems(list, state.paths.map((path) => state.elements.get(path)), false);
  focused?.focus({ preventScroll: true });  // an element moved to another chunk loses its focus
}).observe($("items"));

// Gives each parked chunk the height of a drawn chunk of whole rows, or its share of it.
function resizeParked(list) {
  const size = state.columns * rowsPerChunk();
  const drawn = [...list.children].find((chunk) => !chunk.parked && chunk.childElementCount === size);
  if (!drawn) return;
  const full = drawn.getBoundingClientRect().height;
  for (const chunk of list.children) {
    if (!chunk.parked) continue;
    chunk.style.height = `${(full * Math.ceil(chunk.held.childElementCount / state.columns)) / rowsPerChunk()}px`;
  }
}
