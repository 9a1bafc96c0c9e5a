"use strict";
// The Quire app's page: the sync line in the header. The agent (`quire sync run`) is its own
// process and records its state; the page asks for it every two seconds. The per-item badges
// come with the library's items (browser.js), live.

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

let lastSyncReport = null;

async function refreshSync() {
  try { showSync(await get("api/sync")); } catch { /* the next refresh tries again */ }
}

function showSync(report) {
  lastSyncReport = report;
  const [name, text] = syncLine(report);
  const line = $("sync-line");
  line.dataset.state = name;
  line.textContent = report.server ? `${report.user} · ${text}` : text;
  line.title = report.server
    ? `Signed in to ${report.server} as ${report.user}` + (report.lastError ? ` — last error: ${report.lastError}` : "")
    : "Sign this device in with: quire sync login URL --user NAME";
}
// The dialog: sign this device in to a server (the app starts the agent on its library), or out
// (every agent of this user stops).
$("sync-line").onclick = () => {
  const report = lastSyncReport || {};
  const signedIn = Boolean(report.server);
  $("sync-account").textContent = signedIn
    ? `Signed in to ${report.server} as ${report.user}.` : "Sign in to a Quire Sync server to find your documents on every device.";
  $("sync-sign-in-fields").hidden = signedIn;
  $("sync-sign-in").hidden = signedIn;
  $("sync-sign-out").hidden = !signedIn;
  for (const id of ["sync-server", "sync-user", "sync-password"]) $(id).required = !signedIn;
  $("sync-download-field").hidden = !signedIn;
  $("sync-download").value = (report.download || "all").startsWith("on-demand") ? "on-demand" : "all";
  $("sync-error").textContent = "";
  $("sync-dialog").showModal();
};
$("sync-close").onclick = () => $("sync-dialog").close();
// What this device downloads of the library; the running agent follows at once.
$("sync-download").onchange = async () => {
  $("sync-error").textContent = "";
  try {
    showSync(await post("api/sync/download", { policy: $("sync-download").value }));
  } catch (error) {
    $("sync-error").textContent = error.message;
  }
};
$("sync-form").onsubmit = async (event) => {
  event.preventDefault();
  $("sync-error").textContent = "";
  try {
    showSync(await post("api/sync/login", {
      server: $("sync-server").value, user: $("sync-user").value, password: $("sync-password").value,
    }));
    $("sync-password").value = "";
    $("sync-dialog").close();
  } catch (error) {
    $("sync-error").textContent = error.message;
  }
};
$("sync-sign-out").onclick = async () => {
  try {
    showSync(await post("api/sync/logout"));
    $("sync-dialog").close();
  } catch (error) {
    $("sync-error").textContent = error.message;
  }
};
setInterval(refreshSync, 2000);
refreshSync();
