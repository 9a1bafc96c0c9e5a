"use strict";
// The Quire app's page, part 5: Quick Look. Space shows the selected item without opening an
// editor (a text's first page, a MyDoc's image and text, an album's first image); the arrow
// keys step through the selection, or through the folder when one item is selected, the
// selection following; Space or Escape closes it, back on the item.

async function showQuickLook(path) {
  const item = state.byPath.get(path);
  if (!item) return;
  const dialog = $("quicklook");
  dialog.dataset.path = path;
  $("quicklook-title").textContent = item.name;
  $("quicklook-meta").textContent = metaText(item);
  const image = $("quicklook-image");
  const text = $("quicklook-text");
  image.hidden = true;
  text.hidden = true;
  if (!dialog.open) dialog.showModal();
  if (!item.isFolder && item.kind !== "text" && item.kind !== "other") {
    image.alt = item.name;
    image.src = `api/thumbnail?${query({ path: item.path, v: item.modified })}`;
    image.hidden = false;
  }
  if (item.kind === "text" || item.kind === "mydoc") {
    const preview = await get(`api/preview?${query({ path: item.path })}`);
    if (dialog.dataset.path !== path) return;  // stepped on meanwhile
    text.textContent = preview.text;
    text.hidden = preview.text === "";
  }
}

function quickLook() {
  if (state.anchor && state.selected.has(state.anchor)) attempt(() => showQuickLook(state.anchor));
}

// The next (`step` 1) or previous (-1) item to show.
function quickLookStep(step) {
  const current = $("quicklook").dataset.path;
  const listed = state.paths;
  const stepping = state.selected.size > 1 ? listed.filter((path) => state.selected.has(path)) : listed;
  const at = stepping.indexOf(current);
  const next = stepping[Math.min(Math.max(at + step, 0), stepping.length - 1)];
  if (!next || next === current) return;
  if (state.selected.size <= 1) select([next]); else { state.anchor = next; showSelection(); }
  attempt(() => showQuickLook(next));
}

$("quicklook").addEventListener("keydown", (event) => {
  const steps = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (event.key in steps) {
    quickLookStep(steps[event.key]);
  } else if (event.key === " ") {
    $("quicklook").close();
  } else {
    return;
  }
  event.preventDefault();
});
$("quicklook-close").onclick = () => $("quicklook").close();
$("quicklook").addEventListener("close", () => {
  delete $("quicklook").dataset.path;
  if (state.anchor) focusItem(state.anchor);
});
