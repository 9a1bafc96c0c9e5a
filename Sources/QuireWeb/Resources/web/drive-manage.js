"use strict";
// The web drive, part 2: renaming, what a document's preview offers beyond its contents (its
// versions, each restorable; sharing with another account and by a public link), following a
// share's changes, and the trash, from which a deleted document is put back. These use the sync API at /v1/ with the page's session,
// as a device would with its token.

const container = "iCloud.net.gacha.quire";

function itemURL(item) { return `/v1/containers/${container}/items/${encodeURIComponent(item)}`; }

async function api(method, path, body) {
  const options = { method, headers: { ...webHeaders } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  if (response.status === 401) { showSignIn(); throw new Error("Sign in again to go on."); }
  if (response.status === 204) return null;
  return answer(response);
}

function button(text, label, action) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  if (label) element.setAttribute("aria-label", label);
  element.onclick = () => attempt(action);
  return element;
}

// Renaming in place of the row: a WebDAV MOVE, which sends no bytes (a rename of a folder moves
// everything in it); a name already taken is refused, never replaced.
function renameButton(entry) {
  const element = button("Rename", `Rename “${entry.name}”`, () => rename(entry));
  element.className = "rename";
  return element;
}

async function rename(entry) {
  const name = prompt(`New name for “${entry.name}”`, entry.name)?.trim();
  if (!name || name === entry.name) return;
  if (name.includes("/")) throw new Error(`A name cannot hold “/”: “${name}” was not given.`);
  const collection = entry.kind === "folder" || entry.kind === "package";
  const from = davURL(joined(drive.path, entry.name), collection);
  const to = davURL(joined(drive.path, name), collection);
  const response = await fetch(from, {
    method: "MOVE", headers: { ...webHeaders, Destination: location.origin + to, Overwrite: "F" },
  });
  if (response.status === 412) throw new Error(`“${name}” is already here; choose another name.`);
  if (!response.ok) await answer(response);
  await refresh();
}

// The preview's tools: a document of the account's own drive has versions and can be shared.
function showTools(entry, path) {
  const own = entry.item && !path.startsWith("Shared with me/") && drive.listing?.access === "owner";
  $("quicklook-download").hidden = false;  // a folder's sharing hid it
  $("quicklook-tools").hidden = !own;
  $("versions-panel").hidden = true;
  $("share-panel").hidden = true;
  $("quicklook-tools").dataset.item = entry.item || "";
}

$("versions-button").onclick = () => attempt(async () => {
  $("share-panel").hidden = true;
  await showVersions($("quicklook-tools").dataset.item);
});
$("share-button").onclick = () => attempt(async () => {
  $("versions-panel").hidden = true;
  await showShares({ item: $("quicklook-tools").dataset.item });
});

// The document's versions, newest first; each but the current one can be restored, which
// makes it a new version (nothing is lost: the current one stays in the list).
async function showVersions(item) {
  const list = await api("GET", `${itemURL(item)}/versions`);
  $("versions-list").replaceChildren(...list.versions.map((version) => {
    const li = document.createElement("li");
    li.className = "version";
    li.dataset.revision = version.revision;
    const when = document.createElement("span");
    when.className = "when";
    when.textContent = `${new Date((version.modified ?? version.committed) * 1000).toLocaleString()} · ${version.deviceName}`;
    li.append(when);
    if (version.conflict && !version.resolved) li.append(" (conflict)");
    if (version.revision === list.current) {
      li.append(" (current)");
    } else {
      li.append(" ", button("Restore", `Restore the version of ${when.textContent}`, async () => {
        await api("POST", `${itemURL(item)}/versions/${version.revision}/restore`);
        await showVersions(item);
      }));
    }
    return li;
  }));
  if (list.lock) {
    const li = document.createElement("li");
    li.textContent = `Locked by ${list.lock.owner || "a WebDAV client"}`;
    $("versions-list").prepend(li);
  }
  $("versions-panel").hidden = false;
}

// Who a document (`target.item`) or a folder (`target.folder`, its path in the drive) is shared
// with; a document's public link too (a folder has none).
async function showShares(target) {
  const folder = target.folder !== undefined;
  const base = folder ? `/v1/containers/${container}/shares` : `${itemURL(target.item)}/shares`;
  const [shares, link] = await Promise.all([
    api("GET", base),
    folder ? null : api("GET", `${itemURL(target.item)}/link`).catch(() => null),
  ]);
  const mine = folder
    ? shares.shares.filter((share) => share.isFolder && share.folder?.replace(/\/$/, "") === target.folder)
    : shares.shares;
  $("share-list").replaceChildren(...mine.map((share) => {
    const li = document.createElement("li");
    li.dataset.user = share.user;
    li.append(`${share.user} · ${share.role === "write" ? "can edit" : "can view"} `,
      button("Stop sharing", `Stop sharing with ${share.user}`, async () => {
        await api("DELETE", folder ? `${base}/${encodeURIComponent(share.id)}` : `${base}/${encodeURIComponent(share.user)}`);
        await showShares(target);
      }));
    return li;
  }));
  $("link-line").hidden = folder;
  const url = link ? `${location.origin}/s/${link.token}` : "";
  $("link-url").href = url || "#";
  $("link-url").textContent = url;
  $("link-url").hidden = !link;
  $("link-stop").hidden = !link;
  $("link-make").hidden = Boolean(link);
  $("link-make").onclick = () => attempt(async () => {
    await api("POST", `${itemURL(target.item)}/link`);
    await showShares(target);
  });
  $("link-stop").onclick = () => attempt(async () => {
    await api("DELETE", `${itemURL(target.item)}/link`);
    await showShares(target);
  });
  $("share-form").onsubmit = (event) => {
    event.preventDefault();
    attempt(async () => {
      const user = $("share-user").value.trim();
      const role = $("share-role").value;
      await api("POST", base, folder ? { user, role, folder: target.folder } : { user, role });
      $("share-user").value = "";
      await showShares(target);
    });
  };
  $("share-panel").hidden = false;
}

// A folder of the account's own drive is shared from its row: everything in it, now and later.
function folderShareButton(entry) {
  const path = joined(drive.path, entry.name);
  const element = button("Share…", `Share the folder “${entry.name}”`, async () => {
    const dialog = $("quicklook");
    dialog.dataset.path = path;
    $("quicklook-title").textContent = entry.name;
    $("quicklook-meta").textContent = "Folder";
    for (const id of ["quicklook-download", "quicklook-delete", "quicklook-tools", "versions-panel",
      "quicklook-image", "quicklook-text", "quicklook-members"]) $(id).hidden = true;
    if (!dialog.open) dialog.showModal();
    await showShares({ folder: path });
  });
  element.className = "share";
  return element;
}

// The trash: deleted documents, newest first, each put back where it was.
async function listTrash() {
  const items = await api("GET", "/web/trash");
  $("trash-items").replaceChildren(...items.map((trashed) => {
    const li = document.createElement("li");
    li.className = "item";
    li.dataset.name = trashed.path;
    const open = document.createElement("div");
    open.className = "open";
    const glyph = document.createElement("span");
    glyph.className = `glyph ${trashed.kind === "package" ? "mydoc" : "text"}`;
    glyph.textContent = trashed.kind === "package" ? "Doc" : "File";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = trashed.path;
    const when = cell("date", `Deleted ${new Date(trashed.deleted * 1000).toLocaleString()}`);
    const actions = document.createElement("span");
    actions.className = "cell actions";
    actions.append(button("Put Back", `Put back “${trashed.path}”`, async () => {
      await api("POST", `${itemURL(trashed.item)}/versions/${trashed.revision}/restore`);
      await refresh();
    }));
    open.append(glyph, name, cell("kind", kindWords[trashed.kind] || "File"), when, cell("size", ""), actions);
    li.append(open);
    return li;
  }));
  $("trash-empty").hidden = items.length > 0;
}
$("trash-place").onclick = () => { location.hash = "#trash"; };

// Inside a place shared with the account, its owner's and other participants' changes come on
// the share's journal (the account's own, at /web/events, does not hold them): followed from
// the listing's position while the place is shown and the page is in view.
function followShare(follow) {
  const share = follow ? follow.share : null;
  const open = drive.shareEvents && drive.shareEvents.readyState !== EventSource.CLOSED;
  if (open && drive.shareEvents.share === share) return;  // a closed one (revoked) is made again
  drive.shareEvents?.close();
  drive.shareEvents = null;
  if (!follow || document.hidden) return;
  const events = new EventSource(`/v1/shares/${encodeURIComponent(share)}/events?since=${follow.since}`);
  events.share = share;
  events.addEventListener("change", refresh);
  drive.shareEvents = events;
}
