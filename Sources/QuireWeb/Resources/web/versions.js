"use strict";
// The Quire app's page, part 4: the Versions panel (every saved version of the open document,
// to read, restore or save as a copy) and the side-by-side view of a conflict's versions.

function versionTitle(version) {
  const when = version.date ? new Date(version.date * 1000).toLocaleString() : "Unknown date";
  return version.device ? `${when} — ${version.device}` : when;
}

function versionThumbnail(version) {
  const image = document.createElement("img");
  image.alt = "";
  image.loading = "lazy";
  image.src = `api/documents/versions/thumbnail?${query({ handle: state.doc.handle, id: version.id })}`;
  image.onerror = () => { image.style.visibility = "hidden"; };
  return image;
}

// Fills `target` with what the version holds: its text, or its images' names, and its picture.
function showVersionContents(version, target) {
  const text = document.createElement("pre");
  text.className = "version-text";
  if (version.text != null) { text.textContent = version.text; target.append(text); }
  if (version.images) {
    const list = document.createElement("p");
    list.className = "version-images";
    list.textContent = version.images.length ? version.images.join(", ") : "No images";
    target.append(list);
  }
}

async function openVersion(version) {
  const full = await get(`api/documents/versions/preview?${query({ handle: state.doc.handle, id: version.id })}`);
  $("version-view").hidden = false;
  $("version-view-title").textContent = `${versionTitle(full)} (read-only)`;
  $("version-view-image").src = `api/documents/versions/thumbnail?${query({ handle: state.doc.handle, id: version.id })}`;
  $("version-view-text").hidden = full.text == null;
  $("version-view-text").textContent = full.text ?? "";
  $("version-view-images").hidden = !full.images;
  $("version-view-images").textContent = full.images ? (full.images.join(", ") || "No images") : "";
}

async function showVersions() {
  if (!state.doc) return;
  await attempt(sendText);
  const { versions, lock } = await get(`api/documents/versions?${query({ handle: state.doc.handle })}`);
  $("versions-title").textContent = `Versions of ${state.doc.name}`;
  $("versions-lock").textContent = lock ?? "";
  $("versions-lock").hidden = !lock;
  $("versions-body").hidden = false;
  $("compare-view").hidden = true;
  $("version-view").hidden = true;
  $("versions-list").replaceChildren(...versions.map((version) => {
    const li = document.createElement("li");
    li.className = "version";
    li.dataset.id = version.id;
    const label = document.createElement("div");
    const when = document.createElement("span");
    when.className = "when";
    when.textContent = versionTitle(version);
    label.append(when);
    for (const [flag, text] of [[version.current, "current"], [version.conflict && !version.resolved, "conflict"]]) {
      if (!flag) continue;
      const badge = document.createElement("span");
      badge.className = `badge ${text}`;
      badge.textContent = text;
      label.append(badge);
    }
    const actions = document.createElement("div");
    actions.className = "actions";
    const button = (text, action) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = text;
      b.onclick = () => attempt(action);
      actions.append(b);
      return b;
    };
    button("Open", () => openVersion(version));
    if (!version.current) {
      button("Restore", async () => {
        state.pendingText = null;
        apply(await post("api/documents/versions/restore", { handle: state.doc.handle, id: version.id }), true);
        $("versions-dialog").close();
      }).disabled = state.doc.readOnly;
      button("Save a copy", async () => {
        const { path } = await post("api/documents/versions/copy", { handle: state.doc.handle, id: version.id });
        $("version-view").hidden = false;
        $("version-view-title").textContent = `Saved as ${path}`;
      });
    }
    li.append(versionThumbnail(version), label, actions);
    return li;
  }));
  if (!$("versions-dialog").open) $("versions-dialog").showModal();
}

// What this window shows, beside every version in conflict with it (another device's edit that
// lost, or another program's change made while this window had unsaved edits).
async function compareVersions() {
  if (!state.doc) return;
  await attempt(sendText);
  const { versions } = await get(`api/documents/versions?${query({ handle: state.doc.handle })}`);
  // The window's own column shows what the user sees here, unsent keystrokes included.
  const inWindow = state.doc.kind === "text" || state.doc.kind === "mydoc" ? $("text").value : undefined;
  const shown = { id: "window", current: true, text: inWindow, images: state.doc.kind === "album" ? state.doc.images : undefined };
  const conflicts = versions.filter((v) => v.conflict && !v.resolved);
  $("versions-title").textContent = `${state.doc.name}: the versions in conflict`;
  $("versions-body").hidden = true;
  $("compare-view").hidden = false;
  $("compare-view").replaceChildren(...[shown, ...conflicts].map((version) => {
    const column = document.createElement("section");
    column.className = "compare-column";
    column.dataset.id = version.id;
    const title = document.createElement("h3");
    title.textContent = version.id === "window" ? "In this window" : `Other version: ${versionTitle(version)}`;
    column.append(title);
    if (version.id !== "window") column.append(versionThumbnail(version));
    showVersionContents(version, column);
    return column;
  }));
  if (!$("versions-dialog").open) $("versions-dialog").showModal();
}

$("versions-button").onclick = () => attempt(showVersions);
$("compare").onclick = () => attempt(compareVersions);
$("versions-close").onclick = () => $("versions-dialog").close();
