"use strict";
// The Quire app's page: the sync line in the header and the per-item badges. The agent
// (`quire sync run`) is its own process and records its state; the page asks for it every two
// seconds.

function syncLine(report) {
  if (!report.server) return ["off", "Sync off"];
  if (report.paused) return ["paused", "Sync paused"];
  if (report.connection === "never run") return ["stopped", "Sync not running"];
  if (report.connection === "offline") return ["offline", "Offline"];
  const error = report.items.find((item) => item.state === "error");
  if (error) return ["error", `Error: ${error.path}: ${error.error}`];
  if (report.items.length) return ["syncing", `Syncing ${report.items.length}`];
  return ["current", "Up to date"];
}

async function refreshSync() {
  let report;
  try { report = await get("api/sync"); } catch { return; }  // the next refresh tries again
  const [name, text] = syncLine(report);
  const line = $("sync-line");
  line.dataset.state = name;
  line.textContent = report.server ? `${report.user} · ${text}` : text;
  line.title = report.server
    ? `Signed in to ${report.server} as ${report.user}` + (report.lastError ? ` — last error: ${report.lastError}` : "")
    : "Sign this device in with: quire sync login URL --user NAME";
  const pending = new Map(report.items.map((item) => [item.path, item]));
  for (const li of document.querySelectorAll("#items .item")) {
    const item = pending.get(li.dataset.path);
    if (item) {
      li.dataset.sync = item.state;
      li.title = item.error || item.state;
    } else if (li.dataset.sync) {
      delete li.dataset.sync;
      li.removeAttribute("title");
    }
  }
}
setInterval(refreshSync, 2000);
refreshSync();
