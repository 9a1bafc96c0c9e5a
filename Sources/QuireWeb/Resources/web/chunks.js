"use strict";
// The Quire app's page: a folder's items in chunks of whole rows, and only the chunks near the
// view drawn. One grid of thousands of items is laid out again whole whenever a page
// of the listing is added (Chromium sizes and places every item of a grid each time): a scroll
// through 7 600 items spent 150 ms a frame on it. In chunks of `chunkRows` rows, each a grid of
// its own with the same columns, an added page lays out the last chunk. A chunk more than a
// view's height away is parked: `content-visibility: hidden` at the height it had, so Chromium
// neither styles, lays out, paints nor hit-tests its items, and a frame costs what is near the
// view, whatever the folder's size. Taking the items out of the document instead cost 2 ms a
// chunk of 42. The items stay in the page, so the selection, its marks and the keyboard work
// over the whole folder, and an item brought into view (`showElement`) brings its chunk first.

// Rows per chunk: small enough to lay out within a frame, large enough to keep chunks few.
const chunkRows = 6;
state.columns = 1;

// Parks the chunks that leave the view's neighbourhood and brings back those that come near.
// Skipping chunks with `content-visibility: auto` instead was tried and dropped: until the frame
// that finds a chunk in view, a skipped chunk takes the clicks meant for its items. Here a
// chunk's items come back in the frame before it is in view, and never leave while one of them
// has the focus (the keyboard's place, or a name being edited).
const chunkWindow = new IntersectionObserver((entries) => {
  for (const { target: chunk, isIntersecting, boundingClientRect } of entries) {
    if (!isIntersecting) { park(chunk, boundingClientRect.height); continue; }
    unpark(chunk);
    showThumbnails(chunk.querySelectorAll(".thumb[data-lines], .thumb[data-image]"));
  }
}, { rootMargin: "100% 0px" });

function park(chunk, height) {
  if (chunk.parked || height === 0 || state.lassoing) return;  // a lasso's rows stay: lasso.js
  // Nor the focus's rows, nor the list's tab stop's: Tab skips what is hidden.
  const tabStop = state.elements.get(state.tabStop);
  if (chunk.contains(document.activeElement) || (tabStop && chunk.contains(tabStop))) return;
  chunk.style.height = `${height}px`;
  chunk.parked = true;
  chunk.classList.add("parked");
}

// The chunk's style is brought up to date at once, from outside it: until the next frame
// Chromium would still take its subtree for hidden, and anything that focuses or measures an
// item meanwhile (the keyboard, a script, a test) would make it draw that subtree against the
// lock, and say so on the console.
function unpark(chunk) {
  if (!chunk?.parked) return;
  chunk.parked = false;
  chunk.classList.remove("parked");
  chunk.style.height = "";
  void getComputedStyle(chunk).contentVisibility;
}

// The item's element, drawn: its chunk is brought back if it was parked.
function showElement(path) {
  const element = state.elements.get(path);
  unpark(element?.parentElement);
  return element;
}

function newChunk() {
  const chunk = document.createElement("div");
  chunk.className = "chunk";
  chunk.setAttribute("role", "none");  // the listbox's options stay its own, as before
  chunk.parked = false;
  chunkWindow.observe(chunk);
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
// last chunk first, so every chunk but the last holds whole rows. In place of what it showed
// (a live reload), a chunk whose place was parked, with as many items, is made parked.
function placeItems(list, elements, append) {
  if (!append) state.columns = measureColumns(list);
  // Taken now: the focused item leaves the document (and the focus with it) once its new chunk
  // takes it, and that chunk must not be parked.
  const focused = document.activeElement;
  const size = state.columns * chunkRows;
  const before = append ? [] : [...list.children];
  const chunks = [];
  let last = append ? list.lastElementChild : null;
  let at = 0;
  if (last) {
    unpark(last);
    const room = size - last.childElementCount;
    if (room > 0) {
      const added = elements.slice(0, room);
      last.append(...added);
      // Near the view, the chunk will not be reported again: its new items' pictures are asked for.
      if (!last.parked) showThumbnails(added.map((element) => element.querySelector(".thumb")));
      at = room;
    }
  }
  for (; at < elements.length; at += size) {
    const chunk = newChunk();
    const items = elements.slice(at, at + size);
    chunk.append(...items);
    const old = before[chunks.length];
    if (old?.parked && old.childElementCount === items.length && !items.includes(focused)) {
      park(chunk, parseFloat(old.style.height));
    }
    chunks.push(chunk);
  }
  for (const chunk of before) chunkWindow.unobserve(chunk);
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
  const size = state.columns * chunkRows;
  const drawn = [...list.children].find((chunk) => !chunk.parked && chunk.childElementCount === size);
  if (!drawn) return;
  const full = drawn.getBoundingClientRect().height;
  for (const chunk of list.children) {
    if (!chunk.parked) continue;
    chunk.style.height = `${(full * Math.ceil(chunk.childElementCount / state.columns)) / chunkRows}px`;
  }
}
