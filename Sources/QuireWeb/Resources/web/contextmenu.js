"use strict";
// The Quire app's page, part 4: the browser's context menu. Every action is listed; what does
// not apply to the selection is disabled, not hidden, so the menu reads the same every time.

// The selection's items, as the last listing gave them.
const selectedItems = () => [...state.selected].map((path) => state.byPath.get(path)).filter(Boolean);

// Yours and synced: a document can be shared with another account or by link; a folder of
// yours (not in "Shared with me") with everything in it.
function canShare(item) {
  const sharedWithMe = item.path === "Shared with me" || item.path.startsWith("Shared with me/");
  return item.isFolder ? !sharedWithMe
    : Boolean(item.sync) && item.shared !== "readOnly" && item.shared !== "readWrite";
}

// The menu's entries for `items`: [action, label, enabled].
function menuEntries(items) {
  const one = items.length === 1 ? items[0] : null;
  const some = items.length > 0;
  return [
    ["open", "Open", Boolean(one)],
    ["quicklook", "Quick Look", Boolean(one)],
    ["info", "Get Info", Boolean(one)],
    ["rename", "Rename…", Boolean(one)],
    ["move", "Move to…", some],
    ["duplicate", "Duplicate", some && items.every((item) => !item.isFolder)],
    ["tag", "Tags…", Boolean(one)],
    ["share", "Share…", Boolean(one) && canShare(one)],
    ["export", "Export", Boolean(one) && !one.isFolder],
    // A document in the cloud: bring it here, or give its space back (it stays in the cloud).
    ["download", "Download now",
      some && items.every((item) => item.sync === "notDownloaded" || item.sync === "downloadError")],
    ["remove download", "Remove download",
      some && items.every((item) => item.sync === "current" && !item.isFolder)],
    ["versions", "Versions…", Boolean(one) && !one.isFolder],
    ["resolve", "Resolve Conflict…", Boolean(one) && Boolean(one.conflicts)],
    ["delete", "Move to Trash", some],
  ];
}

// Carries out `action` on `items` (each in turn, where it takes several).
function runAction(action, items) {
  if (items.length === 0) return;
  const [item] = items;
  const each = (body) => attempt(async () => { for (const one of items) await body(one); });
  switch (action) {
    case "open": openItem(item); break;
    case "quicklook": attempt(() => showQuickLook(item.path)); break;
    case "info": showInfo(item); break;
    case "rename": renameInPlace(item); break;
    case "move": {
      const folder = prompt("Move to folder (a path in the library, empty for the top)", "");
      if (folder !== null) attempt(() => moveItems(items.map((one) => one.path), folder));
      break;
    }
    case "duplicate": each((one) => post("api/duplicate", { path: one.path })); break;
    case "tag": attempt(async () => {
      const tags = prompt("Tags, separated by commas", item.tags.join(", "));
      if (tags !== null) {
        await post("api/tag", { path: item.path, tags: tags.split(",").map((t) => t.trim()).filter(Boolean) });
      }
    }); break;
    case "share": attempt(() => openSharing(item)); break;
    case "export": {
      const link = document.createElement("a");
      link.href = `api/export?${query({ path: item.path })}`;
      link.download = item.kind === "text" ? item.name : `${item.name}.zip`;
      link.click();
      break;
    }
    case "download": each((one) => post("api/download", { path: one.path })); break;
    case "remove download": each((one) => post("api/evict", { path: one.path })); break;
    case "versions": state.afterOpen = "versions"; openItem(item); break;
    case "resolve": resolveConflict(item); break;
    case "delete": attempt(() => trashItems(items.map((one) => one.path))); break;
  }
}

function closeMenu(refocus) {
  const menu = $("context-menu");
  if (menu.hidden) return;
  menu.hidden = true;
  if (refocus && state.anchor) focusItem(state.anchor);
}

// Opens the menu for the selection at (x, y) in the window, its first enabled entry focused.
function openMenu(x, y) {
  const items = selectedItems();
  const menu = $("context-menu");
  menu.replaceChildren(...menuEntries(items).map(([action, label, enabled]) => {
    const button = document.createElement("button");
    button.type = "button";
    button.setAttribute("role", "menuitem");
    button.dataset.action = action;
    button.textContent = label;
    button.disabled = !enabled;
    button.tabIndex = -1;
    button.onclick = () => { closeMenu(true); runAction(action, items); };
    return button;
  }));
  menu.hidden = false;
  const box = menu.getBoundingClientRect();
  menu.style.left = `${Math.max(0, Math.min(x, window.innerWidth - box.width - 4))}px`;
  menu.style.top = `${Math.max(0, Math.min(y, window.innerHeight - box.height - 4))}px`;
  const first = menu.querySelector("button:not(:disabled)");
  if (first) first.focus();
}

$("context-menu").addEventListener("keydown", (event) => {
  const entries = [...$("context-menu").querySelectorAll("button:not(:disabled)")];
  const at = entries.indexOf(document.activeElement);
  const moves = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: entries.length - 1 };
  if (event.key in moves && entries.length > 0) {
    entries[(moves[event.key] + entries.length) % entries.length].focus();
  } else if (event.key === "Escape" || event.key === "Tab") {
    closeMenu(true);
  } else {
    return;
  }
  event.preventDefault();
});
document.addEventListener("mousedown", (event) => {
  if (!event.target.closest("#context-menu")) closeMenu(false);
});
window.addEventListener("blur", () => closeMenu(false));

// The toolbar over the list acts on the selection with the menu's actions, enabled as the menu
// enables them. It is one tab stop; the arrow keys move within it (WAI-ARIA's toolbar). On a
// phone only its count and "Actions…" (the whole menu) show.
function showSelectionBar() {
  const items = selectedItems();
  const enabled = new Map(menuEntries(items).map(([action, , on]) => [action, on]));
  $("selection-count").textContent = items.length === 0 ? ""
    : items.length === 1 ? "1 selected" : `${items.length} selected`;
  for (const button of $("selection-bar").querySelectorAll("button[data-action]")) {
    button.disabled = !enabled.get(button.dataset.action);
  }
  $("selection-more").disabled = items.length === 0;
  const buttons = barButtons();
  const stop = buttons.includes(document.activeElement) ? document.activeElement : buttons[0];
  for (const button of $("selection-bar").querySelectorAll("button")) button.tabIndex = button === stop ? 0 : -1;
  // The action made the focused button disabled (nothing left selected): back to the list.
  if (document.activeElement?.closest?.("#selection-bar") && document.activeElement.disabled && state.anchor) {
    focusItem(state.anchor);
  }
}

// The toolbar's buttons that can take focus: enabled, and shown (a phone shows "Actions…" only).
const barButtons = () => [...$("selection-bar").querySelectorAll("button:not(:disabled)")]
  .filter((button) => button.checkVisibility());

for (const button of $("selection-bar").querySelectorAll("button[data-action]")) {
  button.onclick = () => runAction(button.dataset.action, selectedItems());
}
$("selection-more").onclick = () => {
  const box = $("selection-more").getBoundingClientRect();
  openMenu(box.left, box.bottom + 2);
};
$("selection-bar").addEventListener("keydown", (event) => {
  const buttons = barButtons();
  const at = buttons.indexOf(document.activeElement);
  const moves = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: buttons.length - 1 };
  if (!(event.key in moves) || buttons.length === 0) return;
  event.preventDefault();
  const next = buttons[(moves[event.key] + buttons.length) % buttons.length];
  for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
  next.focus();
});
