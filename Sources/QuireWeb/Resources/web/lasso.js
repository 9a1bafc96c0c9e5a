"use strict";
// The Quire app's page: the lasso. Dragging from the empty space around the items draws a
// rectangle that selects every item it touches (with Ctrl or Shift held, in addition to the
// selection there was); a click on the empty space clears the selection, as in Finder.

function startLasso(event) {
  // While renaming, a click outside the field ends the rename (its blur), as in Finder.
  if (event.button !== 0 || $("browser").hidden || state.renaming) return;
  if (event.target !== event.currentTarget && !event.target.closest("#browser")) return;  // a dialog, a message
  if (event.target.closest(".item, button, input, select, a, h2, #columns, #folder-bar, #recents-section")) return;
  const adding = event.ctrlKey || event.metaKey || event.shiftKey;
  const before = adding ? new Set(state.selected) : new Set();
  const origin = { x: event.clientX, y: event.clientY + window.scrollY };
  state.lassoing = true;  // no rows are parked while it is drawn: those it took stay taken
  const box = document.createElement("div");
  box.id = "lasso";
  box.hidden = true;
  document.body.append(box);
  if (!adding) select([]);
  event.preventDefault();  // no text selection while drawing

  const move = (moved) => {
    const here = { x: moved.clientX, y: moved.clientY + window.scrollY };
    const left = Math.min(origin.x, here.x), right = Math.max(origin.x, here.x);
    const top = Math.min(origin.y, here.y), bottom = Math.max(origin.y, here.y);
    Object.assign(box.style, {
      left: `${left}px`, top: `${top - window.scrollY}px`, width: `${right - left}px`, height: `${bottom - top}px`,
    });
    box.hidden = false;
    const meets = (element) => {
      const rect = element.getBoundingClientRect();
      return rect.left < right && rect.right > left
        && rect.top + window.scrollY < bottom && rect.bottom + window.scrollY > top;
    };
    // Only the drawn chunks the rectangle meets are looked into: a folder of thousands is not
    // laid out whole on every move of the mouse, nor a parked chunk drawn (chunks.js).
    const touched = [...$("items").children].filter((chunk) => !chunk.parked && meets(chunk))
      .flatMap((chunk) => [...chunk.children].filter(meets))
      .map((element) => element.dataset.path);
    state.selected = new Set([...before, ...touched]);
    state.anchor = touched[touched.length - 1] ?? state.anchor;
    state.rangeStart = state.anchor;
    showSelection();
  };
  const end = () => {
    state.lassoing = false;
    document.removeEventListener("mousemove", move);
    document.removeEventListener("mouseup", end);
    box.remove();
    if (state.anchor && state.selected.has(state.anchor)) focusItem(state.anchor);
  };
  document.addEventListener("mousemove", move);
  document.addEventListener("mouseup", end);
}

// The browser and the space below it (main's own padding).
document.querySelector("main").addEventListener("mousedown", startLasso);
