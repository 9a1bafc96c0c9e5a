"use strict";
// The Quire app's page: sync at a glance, per item, as Finder and the Files app show it. A cloud
// for a document not downloaded, a ring that fills while it downloads (and turns while it
// uploads), a warning with its message, a badge for an unresolved conflict (a click opens the
// resolution), and a person for a shared item, with its role.

const syncWords = {
  uploading: "Uploading", waiting: "Waiting to upload", error: "Not synced",
  downloading: "Downloading", downloadError: "Not downloaded", notDownloaded: "In the cloud",
  current: "Up to date",
};

function badge(kind, symbol, label) {
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", label);
  span.title = label;
  span.textContent = symbol;
  return span;
}

// A ring that fills to `percent` (or turns, with no percent), an arrow inside.
function ring(arrow, percent, label) {
  const span = badge("ring", arrow, label);
  if (percent === undefined || percent === null) {
    span.classList.add("turning");
  } else {
    span.style.setProperty("--percent", String(Math.max(0, Math.min(100, percent))));
  }
  return span;
}

// The item's badges; `inList` adds the state in words (the list's Sync column).
function syncBadges(item, inList) {
  const box = document.createElement("span");
  box.className = "badges";
  if (item.shared) {
    const label = item.shared === "owner" ? "Shared by you"
      : `Shared by ${item.owner || "another account"}${item.shared === "readOnly" ? ", view only" : ", can edit"}`;
    box.append(badge("shared", item.shared === "owner" ? "👥" : "👤", label));
  }
  if (item.conflicts) {
    const conflict = badge("conflict", "⚠", "Unresolved conflict: open to choose a version");
    conflict.addEventListener("click", (event) => { event.stopPropagation(); resolveConflict(item); });
    box.append(conflict);
  }
  const sync = item.sync;
  const percent = item.percent === undefined || item.percent === null ? null : Math.round(item.percent);
  if (sync === "downloading") {
    box.append(ring("↓", percent, percent === null ? "Downloading" : `Downloading, ${percent} %`));
  } else if (sync === "uploading") {
    box.append(ring("↑", null, "Uploading"));
  } else if (sync === "error" || sync === "downloadError") {
    box.append(badge("warning", "!", `${syncWords[sync]}: ${item.syncError || "the agent retries"}`));
  } else if (sync === "notDownloaded") {
    box.append(badge("cloud", "☁", "In the cloud: not downloaded"));
  } else if (sync === "waiting") {
    box.append(badge("waiting", "…", syncWords.waiting));
  }
  if (inList && sync) {
    const words = document.createElement("span");
    words.className = "sync-words";
    words.textContent = sync === "downloading" && percent !== null ? `${percent} %` : syncWords[sync] || sync;
    box.append(words);
  }
  return box;
}

// Opens the document with its conflict's versions side by side, to choose.
function resolveConflict(item) {
  state.afterOpen = "compare";
  openItem(item);
}
