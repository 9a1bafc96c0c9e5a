"use strict";
// The Quire app's page: how fast the view moves, and what waits while it flies.

// What a chunk's thumbnails show is asked for as it comes near the view, unless the view is
// flying past (faster than `flyingSpeed`, as a flung scroll or a held key moves it): then once
// it slows down or rests, for the chunks still near it. Each picture asked for costs the main
// thread a millisecond or more (its request, its answer, its image drawn), and a view
// scrolled at 50 000 px a second brings twenty a frame that are gone the frame after.
const flyingSpeed = 4;  // px per ms: four views of 860 px a second
const near = new Set();  // the chunks near the view
const waiting = new Set();  // chunks whose thumbnails wait for the view to slow down
let flying = false, lastScroll = { y: 0, at: 0 }, restTimer = 0;

function thumbnailsOf(chunk) {
  if (flying) { waiting.add(chunk); return; }
  showThumbnails(chunk.querySelectorAll(".thumb[data-lines], .thumb[data-image]"));
}

// The view slowed down or rests: what waited is asked for, once (a slow scroll lands on every event).
function land() {
  if (!flying) return;
  flying = false;
  clearTimeout(restTimer);
  const held = pictureQueue.length > 0;  // pictures asked for before the view took off
  for (const chunk of waiting) if (near.has(chunk)) thumbnailsOf(chunk);
  waiting.clear();
  if (held) askForPicturesSoon();
}

addEventListener("scroll", () => {
  const now = performance.now();
  const speed = Math.abs(scrollY - lastScroll.y) / Math.max(1, now - lastScroll.at);
  lastScroll = { y: scrollY, at: now };
  if (speed <= flyingSpeed) { land(); return; }
  flying = true;
  clearTimeout(restTimer);
  restTimer = setTimeout(land, 150);  // no scroll since: the view rests
}, { passive: true });
