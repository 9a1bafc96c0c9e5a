"use strict";
// The Quire app's page, part 9: the sidebar, as Finder's and Files' places: Recents, the
// library and its top-level folders, "Shared with me", the tags in use (each lists its
// documents from the whole library) and the Trash (a place to drop items too). Below 700 px
// it folds away behind the header's Places button.

function place(label, onClick, current) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.onclick = onClick;
  if (current) button.setAttribute("aria-current", "page");
  li.appendChild(button);
  return li;
}

function goToFolder(folder) {
  $("tag-filter").value = "";
  location.hash = `#/folder/${encodeURI(folder)}`;
  if (state.folder === folder) attempt(restart);
  document.body.classList.remove("places-open");
}

async function loadPlaces() {
  const places = await get("api/places");
  const tag = $("tag-filter").value.trim();
  $("places-browse").replaceChildren(
    place("Recents", () => {
      goToFolder("");
      $("recents-section").scrollIntoView();
    }),
    place("Library", () => goToFolder(""), !tag && state.folder === ""),
    ...places.folders.map((name) => {
      const li = place(name, () => goToFolder(name), !tag && state.folder === name);
      li.firstChild.dataset.folder = name;
      return li;
    }));
  $("places-shared-title").hidden = !places.shared;
  $("places-shared").replaceChildren(...(places.shared
    ? [place("Shared with me", () => goToFolder("Shared with me"), state.folder === "Shared with me")] : []));
  $("places-tags-title").hidden = places.tags.length === 0;
  $("places-tags").replaceChildren(...places.tags.map((name) => place(name, () => {
    location.hash = "#/folder/";
    $("tag-filter").value = name;
    attempt(restart);
    document.body.classList.remove("places-open");
  }, tag.toLowerCase() === name.toLowerCase())));
}

$("places-trash").onclick = () => $("trash-button").click();
$("places-toggle").onclick = () => document.body.classList.toggle("places-open");

// The Trash takes dragged items, as Finder's does; Ctrl+Z takes them back.
$("places-trash").addEventListener("dragover", (event) => {
  if (!event.dataTransfer.types.includes(dragType)) return;
  event.preventDefault();
  $("places-trash").classList.add("drop-target");
});
$("places-trash").addEventListener("dragleave", () => $("places-trash").classList.remove("drop-target"));
$("places-trash").addEventListener("drop", (event) => {
  if (!event.dataTransfer.types.includes(dragType)) return;
  event.preventDefault();
  $("places-trash").classList.remove("drop-target");
  attempt(() => trashItems(JSON.parse(event.dataTransfer.getData(dragType))));
});

// The sidebar stays in view below the header, whose height changes as its tools wrap.
new ResizeObserver(([entry]) => {
  document.documentElement.style.setProperty("--header-height", `${entry.target.offsetHeight}px`);
}).observe($("toolbar"));
