"use strict";
// The web drive, part 3: moving into another folder, as a file manager does. A row dragged onto
// a folder's row, or onto a folder of the path above the list, moves there; or Move asks for the
// folder by its path, from the keyboard too. Either is one WebDAV MOVE, which sends no bytes
// (a folder moves with everything in it); a name the folder already holds is refused, never
// replaced.

const moveType = "application/x-quire-drive-item";

// What a row's drag carries: the item's path in the drive, its name, and whether it is a
// collection (a folder or a package).
function moveSource(entry) {
  return {
    path: joined(drive.path, entry.name), name: entry.name,
    collection: entry.kind === "folder" || entry.kind === "package",
  };
}

async function moveInto(source, folder) {
  if (folder === source.path) return;  // dropped on itself
  if (folder.startsWith(source.path + "/")) {
    throw new Error(`“${source.name}” cannot go inside itself.`);
  }
  const slash = source.path.lastIndexOf("/");
  if ((slash < 0 ? "" : source.path.slice(0, slash)) === folder) return;  // already there
  const to = davURL(joined(folder, source.name), source.collection);
  const response = await fetch(davURL(source.path, source.collection), {
    method: "MOVE", headers: { ...webHeaders, Destination: location.origin + to, Overwrite: "F" },
  });
  if (response.status === 401) { showSignIn(); throw new Error("Sign in again to go on."); }
  if (response.status === 412) {
    throw new Error(`“${folder || "My Drive"}” already holds a “${source.name}”; rename one of them first.`);
  }
  if (response.status === 409) throw new Error(`There is no folder “${folder}” in your drive.`);
  if (!response.ok) await answer(response);
  await refresh();
}

function moveButton(entry) {
  const element = button("Move", `Move “${entry.name}” to another folder`, () => askMove(entry));
  element.className = "move";
  return element;
}

async function askMove(entry) {
  const typed = prompt(
    `Move “${entry.name}” to which folder? Give its path, such as Notes/2026; leave it empty for My Drive.`,
    drive.path);
  if (typed === null) return;
  await moveInto(moveSource(entry), typed.trim().replace(/^\/+|\/+$/g, ""));
}

// A row that can be dragged onto a folder.
function draggableRow(li, entry) {
  li.draggable = true;
  li.addEventListener("dragstart", (event) => {
    event.dataTransfer.setData(moveType, JSON.stringify(moveSource(entry)));
    event.dataTransfer.effectAllowed = "move";
  });
}

// A folder's row or crumb that takes a dragged row into `folder`.
function dropTarget(element, folder) {
  const carries = (event) => event.dataTransfer?.types.includes(moveType);
  element.addEventListener("dragover", (event) => {
    if (!carries(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    element.classList.add("drop-target");
  });
  element.addEventListener("dragleave", () => element.classList.remove("drop-target"));
  element.addEventListener("drop", (event) => {
    element.classList.remove("drop-target");
    if (!carries(event)) return;
    event.preventDefault();
    event.stopPropagation();  // not an upload
    const source = JSON.parse(event.dataTransfer.getData(moveType));
    attempt(() => moveInto(source, folder));
  });
}
