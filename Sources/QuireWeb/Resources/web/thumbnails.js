"use strict";
// The Quire app's page: the thumbnails of the browser's items.

// An item's thumbnail: its kind's glyph at once, and what shows the document (a text's first
// lines, a picture) once `showThumbnails` is called for it: at once in Recents, as its chunk comes
// near the view in the library (chunks.js, flying.js). The glyph is a picture behind the box
// (style.css), not an element of its own: each element an item has is styled and laid out in the
// frame that brings it into view.
function thumb(item) {
  const box = document.createElement("div");
  box.className = "thumb";
  box.dataset.kind = item.kind in icons ? item.kind : "other";  // its glyph, the placeholder
  if (item.kind === "text" && state.layout === "grid") {
    // A text's first lines, drawn by the page. As an <img>, each SVG preview was a document of
    // its own to Chromium, about 17 ms of the main thread apiece: scrolling a folder of notes
    // stalled on them.
    box.dataset.lines = item.path;
  } else if (!item.isFolder && item.kind !== "other") {
    box.dataset.image = `api/thumbnail?${query({ path: item.path, v: item.modified })}`;
  }
  return box;
}

// Asks for what the thumbnails in `boxes` show, once each. Pictures are asked for a few a frame,
// in the task after it: each request costs Chromium's main thread most of a millisecond, and the
// items' names and glyphs should not wait for them (a view that comes to rest asks for fifty at
// once). A picture is laid out at its final size from the start, over the glyph, and decoded
// off the main thread; the glyph goes (`shown`) once it has loaded.
function showThumbnails(boxes) {
  const images = [], notes = new Map();
  for (const box of boxes) {
    if (box.dataset.lines) notes.set(box.dataset.lines, box);
    else if (box.dataset.image) images.push(box);
    delete box.dataset.lines;
  }
  if (notes.size > 0) showLines(notes);
  if (images.length === 0) return;
  const idle = pictureQueue.length === 0;
  pictureQueue.push(...images);
  if (idle) askForPicturesSoon();
}
const pictureQueue = [];
const picturesPerFrame = 8;
const askForPicturesSoon = () => requestAnimationFrame(() => setTimeout(askForPictures));

// The queue's next pictures; none while the view flies (flying.js), which goes on once it lands.
function askForPictures() {
  if (flying) return;
  for (const box of pictureQueue.splice(0, picturesPerFrame)) {
    // Out of the document meanwhile (another folder, a parked chunk): asked for when it is back.
    if (!box.isConnected || !box.dataset.image) continue;
    const image = document.createElement("img");
    image.alt = "";
    image.decoding = "async";
    image.onload = () => box.classList.add("shown");
    image.onerror = () => image.remove();
    image.src = box.dataset.image;
    delete box.dataset.image;
    box.appendChild(image);
  }
  if (pictureQueue.length > 0) askForPicturesSoon();
}

// The first lines of the notes `boxes` (path → thumbnail) show, asked for in one request.
function showLines(boxes) {
  post("api/previews", { paths: [...boxes.keys()] }).then(({ texts }) => {
    for (const [path, box] of boxes) {
      const text = (texts[path] ?? "").split("\n").slice(0, 12).join("\n");
      if (!text.trim()) continue;  // an empty note, or one gone meanwhile, keeps its glyph
      const lines = document.createElement("div");
      lines.className = "lines";
      lines.setAttribute("aria-hidden", "true");  // the item's name names it
      lines.textContent = text;
      box.replaceChildren(lines);
      box.classList.add("shown");
    }
  }, () => {});  // the glyphs stay
}
