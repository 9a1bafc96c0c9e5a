"use strict";
// The Quire app's page, part 5: the SimpleiCloudDocument sample (#/sicd). Its documents come
// from a live query (*.sicd, by name, batched each second); a document in conflict turns its
// Conflicts button red, and the button settles it as the sample does: the latest version wins.

async function loadSimple() {
  const { documents } = await get("api/sicd");
  $("simple-empty").hidden = documents.length > 0;
  $("simple-list").replaceChildren(...documents.map((doc) => {
    const li = document.createElement("li");
    li.className = "simple-doc";
    li.dataset.path = doc.path;
    const link = document.createElement("a");
    link.href = `#/doc/${encodeURI(doc.path)}`;
    link.textContent = doc.name;
    const date = document.createElement("span");
    date.className = "meta";
    date.textContent = new Date(doc.modified).toLocaleString();
    const conflicts = document.createElement("button");
    conflicts.type = "button";
    conflicts.className = "conflicts";
    conflicts.textContent = "Conflicts";
    conflicts.dataset.conflict = String(doc.conflict);
    conflicts.disabled = !doc.conflict;
    conflicts.title = doc.conflict ? "Keep the latest version and remove the others" : "No conflict";
    conflicts.onclick = () => attempt(async () => {
      conflicts.disabled = true;
      await post("api/sicd/resolve", { path: doc.path });
      await loadSimple();
    });
    li.append(link, date, conflicts);
    return li;
  }));
}

async function showSimple() {
  $("browser").hidden = true;
  $("browser-tools").hidden = true;
  $("editor").hidden = true;
  $("crumbs").replaceChildren();
  $("simple").hidden = false;
  await attempt(loadSimple);
}

$("simple-new").onclick = () => attempt(async () => {
  const { path } = await post("api/create", { kind: "sicd", name: "Document", folder: "" });
  location.hash = `#/doc/${encodeURI(path)}`;
});
