"use strict";
// The Quire app's page, part 8: dragging items onto a folder (or a folder of the path above
// the list) moves them there, undoably, and with Ctrl held copies them; files dragged in from
// the desktop are imported (browser.js). A drag carries the selection when it starts on a
// selected item.

const dragType = "application/x-quire-paths";

$("items").addEventListener("dragstart", (event) => {
  const element = event.target.closest?.(".item[role=option]");
  if (!element) return;
  if (!state.selected.has(element.dataset.path)) select([element.dataset.path]);
  event.dataTransfer.setData(dragType, JSON.stringify([...state.selected]));
  event.dataTransfer.effectAllowed = "copyMove";
});

// Ctrl copies (Option, that is Alt, on a Mac keyboard, where Ctrl-click opens a menu).
const copies = (event) => event.ctrlKey || event.altKey;

// Where a drag may drop: a folder item of the list, or a link of the path above it.
function dropTarget(event) {
  if (!event.dataTransfer || !event.dataTransfer.types.includes(dragType)) return null;
  const folder = event.target.closest?.("#items .item[data-folder]");
  if (folder) return { element: folder, path: folder.dataset.path };
  const crumb = event.target.closest?.("#crumbs a");
  if (crumb) return { element: crumb, path: crumb.dataset.folder };
  return null;
}

for (const area of [$("items"), $("crumbs")]) {
  area.addEventListener("dragover", (event) => {
    const target = dropTarget(event);
    if (!target) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = copies(event) ? "copy" : "move";
    target.element.classList.add("drop-target");
  });
  area.addEventListener("dragleave", (event) => {
    event.target.closest?.(".drop-target")?.classList.remove("drop-target");
  });
  area.addEventListener("drop", (event) => {
    const target = dropTarget(event);
    if (!target) return;
    event.preventDefault();
    event.stopPropagation();
    target.element.classList.remove("drop-target");
    const paths = JSON.parse(event.dataTransfer.getData(dragType))
      .filter((path) => path !== target.path && !target.path.startsWith(`${path}/`));
    if (copies(event)) {  // a copy, even into the folder it is in (a free name: "Note 2.txt")
      if (paths.length > 0) attempt(() => copyItems(paths, target.path));
      return;
    }
    const here = (path) => path.split("/").slice(0, -1).join("/");
    const moving = paths.filter((path) => here(path) !== target.path);
    if (moving.length > 0) attempt(() => moveItems(moving, target.path));
  });
}
