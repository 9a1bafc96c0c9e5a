"use strict";
// The Quire app's page: the item menu's Share dialog. It shares a synced document with another
// account on the same server (view only, or make changes), makes or removes its public
// read-only link, and stops sharing — as `quire share` and `quire unshare` do. A folder is
// shared with everything in it; it has no public link.

const sharing = { path: null, isFolder: false };

function showSharing(answer) {
  const list = $("share-list");
  list.replaceChildren();
  for (const share of answer.shares) {
    const li = document.createElement("li");
    li.dataset.user = share.user;
    li.textContent = `${share.user}: ${share.role === "write" ? "can make changes" : "view only"} `;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.textContent = "Stop sharing";
    remove.onclick = () => changeSharing("api/sharing/remove", { with: share.user });
    li.appendChild(remove);
    list.appendChild(li);
  }
  if (!answer.shares.length) {
    const li = document.createElement("li");
    li.textContent = "Not shared with anyone.";
    list.appendChild(li);
  }
  $("share-link-line").hidden = !answer.link;
  $("share-link").href = answer.link || "";
  $("share-link").textContent = answer.link || "";
  $("share-public").hidden = Boolean(answer.link) || sharing.isFolder;
}

async function changeSharing(path, body) {
  $("share-error").textContent = "";
  try {
    showSharing(await post(path, { path: sharing.path, ...body }));
  } catch (error) {
    $("share-error").textContent = error.message;
  }
}

async function openSharing(item) {
  sharing.path = item.path;
  sharing.isFolder = item.isFolder;
  $("share-title").textContent = item.isFolder
    ? `Share the folder “${item.name}” and everything in it` : `Share “${item.name}”`;
  $("share-error").textContent = "";
  $("share-user").value = "";
  showSharing({ shares: [], link: null });
  $("share-dialog").showModal();
  try {
    showSharing(await get(`api/sharing?${query({ path: item.path })}`));
  } catch (error) {
    $("share-error").textContent = error.message;
  }
}

$("share-form").onsubmit = (event) => {
  event.preventDefault();
  const user = $("share-user").value.trim();
  if (!user) { $("share-error").textContent = "Give the account to share with."; return; }
  changeSharing("api/sharing", { with: user, role: $("share-role").value });
  $("share-user").value = "";
};
$("share-public").onclick = () => changeSharing("api/sharing", { public: "true" });
$("share-link-remove").onclick = () => changeSharing("api/sharing/remove", { public: "true" });
$("share-close").onclick = () => $("share-dialog").close();
