"use strict";
// The Quire app's page, part 6: the info panel (Ctrl+I, or Get Info in the menu): an item's
// kind, size, place, date, tags, sync state and sharing, as Finder's Get Info shows them.

const syncStates = {
  current: "Up to date", uploading: "Uploading", downloading: "Downloading", waiting: "Waiting",
  notDownloaded: "In the cloud (not downloaded)", error: "Not synced", downloadError: "Not downloaded",
};
const sharingStates = { owner: "Shared by you", readWrite: "Shared with you (can edit)", readOnly: "Shared with you (view only)" };

function showInfo(item) {
  const folder = item.path.split("/").slice(0, -1).join("/");
  const rows = [
    ["Kind", kindName(item)],
    ["Size", item.isFolder ? "—" : `${sizeText(item.size)} (${item.size.toLocaleString()} bytes)`],
    ["Where", folder ? `Library › ${folder.split("/").join(" › ")}` : "Library"],
    ["Modified", dateText(item.modified)],
    ["Tags", item.tags.length ? item.tags.join(", ") : "None"],
    ["Sync", item.sync ? (syncStates[item.sync] || item.sync) + (item.syncError ? `: ${item.syncError}` : "")
      : "Not in a synced folder"],
    ["Sharing", item.shared ? sharingStates[item.shared] + (item.owner ? ` (${item.owner})` : "") : "Not shared"],
  ];
  if (item.conflicts) rows.push(["Conflict", "Another device's version is kept beside this one: open it to choose"]);
  $("info-title").textContent = item.name;
  $("info-list").replaceChildren(...rows.flatMap(([label, value]) => {
    const term = document.createElement("dt");
    term.textContent = label;
    const detail = document.createElement("dd");
    detail.textContent = value;
    detail.dataset.field = label.toLowerCase();
    return [term, detail];
  }));
  $("info").showModal();
}
$("info-close").onclick = () => $("info").close();
$("info").addEventListener("close", () => { if (state.anchor) focusItem(state.anchor); });
