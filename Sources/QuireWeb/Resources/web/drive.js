"use strict";
// The web drive of `quire server` (the icloud.com role): sign in with the account's password,
// then browse, upload, download, preview and delete in the drive. Everything goes through the
// WebDAV drive at /dav/ with the session's cookie, so every rule of WebDAV holds here too (a
// read-only share refuses writes, a lock refuses a change); the drive's journal at /web/events
// tells the page when anything changes, and the folder shown is listed again.
// It shares the app's stylesheet and its `$`, `answer`, `showError` (api.js) and `startJob`
// (progress.js).

const drive = { path: "", listing: null, loading: null, again: false, events: null, shareEvents: null };
const webHeaders = { "X-Quire-Web": "1" };
const textNames = /\.(txt|md|markdown|csv|json|swift|log)$/i;
const imageNames = /\.(png|jpe?g|gif|webp)$/i;

// The /dav/ address of a path in the drive ("" is the drive), a collection's with a slash.
function davURL(path, collection) {
  const parts = path === "" ? [] : path.split("/").map(encodeURIComponent);
  return "/dav/" + parts.join("/") + (collection && parts.length > 0 ? "/" : "");
}

function joined(folder, name) { return folder === "" ? name : `${folder}/${name}`; }

function sizeWords(bytes) {
  if (bytes === undefined || bytes === null) return "";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1 << 20) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1 << 20)).toFixed(1)} MB`;
}

const kindWords = { folder: "Folder", package: "Document", file: "File", member: "File" };
const glyphWords = { folder: "Folder", package: "Doc", file: "File", member: "File" };

// A request to the drive: its answer, or an Error with the server's message (a 401 signs out).
async function davRequest(method, path, options = {}) {
  const response = await fetch(path, {
    method, body: options.body,
    headers: { ...webHeaders, ...(options.headers || {}) },
  });
  if (response.status === 401) { showSignIn(); throw new Error("Sign in again to go on."); }
  if (!response.ok) await answer(response);
  return response;
}

// Lists what is shown (the folder, or the trash: drive-manage.js); a change that comes while it
// is listed lists it again, once, after.
function refresh() {
  if (drive.loading) { drive.again = true; return drive.loading; }
  drive.loading = attempt(async () => {
    try {
      do {
        drive.again = false;
        if (location.hash === "#trash") { await listTrash(); continue; }
        const path = drive.path;
        const response = await davRequest("GET", davURL(path, true), { headers: { Accept: "application/json" } });
        const listing = await response.json();
        if (path === drive.path && location.hash !== "#trash") show(listing);
      } while (drive.again);
    } finally { drive.loading = null; }
  });
  return drive.loading;
}

function show(listing) {
  drive.listing = listing;
  const items = $("items");
  items.replaceChildren(...listing.entries.map(row));
  $("empty").hidden = listing.entries.length > 0;
  const writable = listing.access !== "reader";
  $("upload-label").hidden = !writable;
  $("new-folder").hidden = !writable;
  document.body.dataset.access = listing.access;
  followShare(listing.follow);
}

function row(entry) {
  const li = document.createElement("li");
  li.className = "item";
  li.dataset.name = entry.name;
  li.dataset.kind = entry.kind;
  const open = document.createElement("div");
  open.className = "open";
  let glyph = document.createElement("span");
  glyph.className = `glyph ${entry.kind === "folder" ? "folder" : entry.kind === "package" ? "mydoc" : "text"}`;
  glyph.textContent = glyphWords[entry.kind];
  if (entry.thumbnail) {  // the picture its app saved, read as the page needs it
    glyph = document.createElement("img");
    glyph.className = "thumbnail";
    glyph.alt = "";
    glyph.loading = "lazy";
    glyph.src = davURL(`${joined(drive.path, entry.name)}/${entry.thumbnail}`, false);
  }
  const name = document.createElement("button");
  name.type = "button";
  name.className = "name";
  name.textContent = entry.name;
  name.onclick = () => attempt(() => activate(entry));
  const kind = cell("kind", kindWords[entry.kind]);
  const date = cell("date", entry.modified ? new Date(entry.modified * 1000).toLocaleString() : "");
  const size = cell("size", sizeWords(entry.size));
  const actions = document.createElement("span");
  actions.className = "cell actions";
  if (entry.kind !== "folder") actions.append(downloadLink(entry));
  // In "Shared with me" a share is left, not deleted; in a read-only share nothing is.
  const sharedWithMe = drive.path === "" && entry.name === "Shared with me" && entry.kind === "folder";
  const own = drive.listing?.access === "owner" && !drive.path.startsWith("Shared with me");
  if (entry.kind === "folder" && own && !sharedWithMe) actions.append(folderShareButton(entry));
  const writable = drive.listing?.access !== "reader" && !sharedWithMe;
  if (writable) actions.append(renameButton(entry), moveButton(entry), deleteButton(entry));
  open.append(glyph, name, kind, date, size, actions);
  li.append(open);
  if (writable) draggableRow(li, entry);
  if (entry.kind === "folder" && !sharedWithMe) dropTarget(li, joined(drive.path, entry.name));
  return li;
}

function cell(kind, text) {
  const span = document.createElement("span");
  span.className = `cell ${kind}`;
  span.textContent = text;
  return span;
}

function downloadLink(entry) {
  const link = document.createElement("a");
  link.className = "button download";
  const path = joined(drive.path, entry.name);
  link.href = entry.kind === "package" ? davURL(path, true) + "?archive" : davURL(path, false);
  link.download = entry.kind === "package" ? `${entry.name}.zip` : entry.name;
  link.textContent = "Download";
  link.setAttribute("aria-label", `Download “${entry.name}”`);
  return link;
}

function deleteButton(entry) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "delete";
  button.textContent = "Delete";
  button.setAttribute("aria-label", `Delete “${entry.name}”`);
  button.onclick = () => attempt(() => remove(joined(drive.path, entry.name), entry));
  return button;
}

async function remove(path, entry) {
  const what = entry.kind === "folder" ? "the folder" : "";
  if (!confirm(`Delete ${what} “${entry.name}” from your drive on every device?`)) return;
  await davRequest("DELETE", davURL(path, entry.kind === "folder" || entry.kind === "package"));
  if ($("quicklook").open) $("quicklook").close();
  await refresh();
}

// A folder opens; a document or a file shows in the preview.
async function activate(entry) {
  if (entry.kind === "folder") { go(joined(drive.path, entry.name)); return; }
  await preview(entry);
}

async function preview(entry) {
  const path = joined(drive.path, entry.name);
  const dialog = $("quicklook");
  dialog.dataset.path = path;
  $("quicklook-title").textContent = entry.name;
  $("quicklook-meta").textContent = [kindWords[entry.kind], sizeWords(entry.size)].filter(Boolean).join(" · ");
  const download = downloadLink(entry);
  $("quicklook-download").href = download.href;
  $("quicklook-download").download = download.download;
  $("quicklook-delete").hidden = drive.listing?.access === "reader" || drive.path === "Shared with me";
  $("quicklook-delete").onclick = () => attempt(() => remove(path, entry));
  const image = $("quicklook-image");
  const text = $("quicklook-text");
  const members = $("quicklook-members");
  image.hidden = true;
  text.hidden = true;
  members.hidden = true;
  showTools(entry, path);  // drive-manage.js
  if (!dialog.open) dialog.showModal();
  if (entry.kind === "package") {
    const response = await davRequest("GET", davURL(path, true), { headers: { Accept: "application/json" } });
    const listing = await response.json();
    if (dialog.dataset.path !== path) return;  // another one is shown meanwhile
    members.replaceChildren(...listing.entries.map((member) => {
      const li = document.createElement("li");
      li.textContent = `${member.name} ${member.kind === "folder" ? "" : "· " + sizeWords(member.size)}`;
      return li;
    }));
    members.hidden = false;
    await showThumbnail(path, listing.entries);
  } else if (imageNames.test(entry.name)) {
    image.alt = entry.name;
    image.src = davURL(path, false);
    image.hidden = false;
  } else if (textNames.test(entry.name) && (entry.size ?? 0) <= 1 << 20) {
    const response = await davRequest("GET", davURL(path, false));
    const body = await response.text();
    if (dialog.dataset.path !== path) return;  // another one is shown meanwhile
    text.textContent = body;
    text.hidden = false;
  }
}
// A package's picture: the thumbnail its app saved in QuickLook/, if it has one.
async function showThumbnail(path, entries) {
  if (!entries.some((entry) => entry.name === "QuickLook" && entry.kind === "folder")) return;
  const response = await davRequest("GET", davURL(`${path}/QuickLook`, true), { headers: { Accept: "application/json" } });
  const thumbnail = (await response.json()).entries.find((entry) => /^Thumbnail\./.test(entry.name) && imageNames.test(entry.name));
  if (!thumbnail || $("quicklook").dataset.path !== path) return;
  const image = $("quicklook-image");
  image.alt = `The thumbnail of “${path.split("/").pop()}”`;
  image.src = davURL(`${path}/QuickLook/${thumbnail.name}`, false);
  image.hidden = false;
}
$("quicklook-close").onclick = () => $("quicklook").close();

// Sends `files` into the folder shown, one after another, with the bytes sent in a progress bar.
async function upload(files) {
  const folder = drive.path;  // where they were dropped, whatever is shown next
  const chosen = [...files];
  if (chosen.length === 0) return;
  const total = chosen.reduce((sum, file) => sum + file.size, 0);
  const job = startJob("Uploading", Math.max(total, 1), true);
  let before = 0;
  try {
    for (const [index, file] of chosen.entries()) {
      if (job.cancelled) break;
      const label = chosen.length > 1 ? `Uploading ${index + 1} of ${chosen.length}` : `Uploading “${file.name}”`;
      job.step(before, label);
      if (!await put(file, joined(folder, file.name), job, (loaded) => job.step(before + loaded, label))) break;
      before += file.size;
    }
  } finally { job.end(); }
  await refresh();
}

// One file's PUT, its progress told to `sent`; false if the job was cancelled on the way.
function put(file, path, job, sent) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("PUT", davURL(path, false));
    request.setRequestHeader("X-Quire-Web", "1");
    request.upload.onprogress = (event) => sent(event.loaded);
    request.onload = () => {
      if (request.status < 300) { resolve(true); return; }
      let message = `The server answered ${request.status}.`;
      try { message = JSON.parse(request.responseText).error.message; } catch { /* not JSON */ }
      reject(new Error(`“${file.name}” was not uploaded: ${message}`));
    };
    request.onerror = () => reject(new Error(`“${file.name}” could not be sent to the server.`));
    request.onabort = () => resolve(false);
    job.abort = () => request.abort();
    request.send(file);
  });
}

$("upload").onchange = () => {
  const files = [...$("upload").files];
  $("upload").value = "";
  attempt(() => upload(files));
};
$("new-folder").onclick = () => attempt(async () => {
  const name = prompt("Name of the new folder");
  if (!name) return;
  await davRequest("MKCOL", davURL(joined(drive.path, name), true));
  await refresh();
});

// Dropping files on the page uploads them into the folder shown.
let dragDepth = 0;
document.addEventListener("dragenter", (event) => {
  if (!event.dataTransfer?.types.includes("Files") || $("browser").hidden) return;
  dragDepth += 1;
  $("drop").hidden = false;
});
document.addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (dragDepth === 0) $("drop").hidden = true;
});
document.addEventListener("dragover", (event) => event.preventDefault());
document.addEventListener("drop", (event) => {
  event.preventDefault();
  dragDepth = 0;
  $("drop").hidden = true;
  if ($("browser").hidden || $("upload-label").hidden) return;  // the trash, or a read-only share
  if (event.dataTransfer?.files.length) attempt(() => upload(event.dataTransfer.files));
});

// Where the page is: the hash holds the folder's path ("#/Notes/2026").
function go(path) { location.hash = "#/" + path.split("/").map(encodeURIComponent).join("/"); }

function pathFromHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  try {
    return raw === "" ? "" : raw.split("/").map(decodeURIComponent).join("/");
  } catch {
    return "";  // an address typed by hand that is not a path: the drive
  }
}

function showCrumbs() {
  const crumbs = [["My Drive", ""]];
  let at = "";
  for (const part of drive.path === "" ? [] : drive.path.split("/")) {
    at = joined(at, part);
    crumbs.push([part, at]);
  }
  $("crumbs").replaceChildren(...crumbs.map(([name, path]) => {
    const link = document.createElement("a");
    link.href = "#/" + (path === "" ? "" : path.split("/").map(encodeURIComponent).join("/"));
    link.textContent = name;
    if (path !== "Shared with me") dropTarget(link, path);  // nothing is made there
    return link;
  }));
  $("folder-title").textContent = crumbs[crumbs.length - 1][0];
  for (const button of document.querySelectorAll("#sidebar [data-place]")) {
    const here = button.dataset.place === "" ? drive.path === "" : drive.path.startsWith(button.dataset.place);
    if (here) button.setAttribute("aria-current", "page"); else button.removeAttribute("aria-current");
  }
}
for (const button of document.querySelectorAll("#sidebar [data-place]")) {
  button.onclick = () => go(button.dataset.place);
}
// The folder the address names, or the trash (`#trash`, drive-manage.js).
function route() {
  const trash = location.hash === "#trash";
  $("trash").hidden = !trash;
  $("browser").hidden = trash;
  drive.path = trash ? "" : pathFromHash();
  showCrumbs();
  if (trash) {
    for (const button of document.querySelectorAll("#sidebar [data-place]")) button.removeAttribute("aria-current");
    $("trash-place").setAttribute("aria-current", "page");
  } else {
    $("trash-place").removeAttribute("aria-current");
  }
  return refresh();
}

window.addEventListener("hashchange", route);

// Signed in: the drive, listed once its journal is followed, so no change falls between.
function showDrive(user) {
  $("sign-in").hidden = true;
  document.body.classList.remove("signed-out");
  for (const id of ["browser", "sidebar", "browser-tools"]) $(id).hidden = false;
  $("account").textContent = user;
  follow();
}

// Follows the drive's journal while the page is in view. A hidden tab lets its stream go (a
// session's streams are bounded, and each holds one of the browser's connections), and lists
// again when it is shown. A stream the server closed for good (signed out elsewhere) asks
// whether the session still holds.
function follow() {
  drive.events?.close();
  drive.events = null;
  followShare(null);  // listed again once in view, which follows the share again
  if (document.hidden || $("sidebar").hidden) return;
  const events = new EventSource("/web/events");
  drive.events = events;
  events.onopen = route;
  events.addEventListener("change", refresh);
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED && drive.events === events) attempt(checkSession);
  };
}
document.addEventListener("visibilitychange", () => { if (!$("sidebar").hidden) follow(); });

async function checkSession() {
  const response = await fetch("/web/session");
  if (response.ok) showDrive((await response.json()).user); else showSignIn();
}

function showSignIn() {
  drive.events?.close();
  drive.events = null;
  followShare(null);
  for (const id of ["browser", "trash", "sidebar", "browser-tools"]) $(id).hidden = true;
  $("items").replaceChildren();
  $("sign-in").hidden = false;
  document.body.classList.add("signed-out");
  $("user").focus();
}

$("sign-in").onsubmit = (event) => {
  event.preventDefault();
  attempt(async () => {
    const response = await fetch("/web/session", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ user: $("user").value, password: $("password").value }),
    });
    const data = await answer(response);
    $("password").value = "";
    $("message").hidden = true;
    showDrive(data.user);
  });
};
$("sign-out").onclick = () => attempt(async () => {
  try {
    const response = await fetch("/web/session", { method: "DELETE" });
    if (response.status !== 401) await answer(response);  // already signed out is signed out
  } finally { showSignIn(); }
});

attempt(checkSession);
