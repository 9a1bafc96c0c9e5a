"use strict";
// The Quire app's page, part 7: Undo and Redo in the browser (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y),
// as Finder undoes a rename, a move or a move to the Trash. Each operation answers its inverse,
// built from what the server answered (the new path, the name in the Trash), so undoing goes
// back exactly; a step that no longer applies (the item went elsewhere since) fails with the
// server's message and is dropped. The steps live in the page: they end with it.

state.undoSteps = [];
state.redoSteps = [];
// Operations, undos and redos run one after another: Ctrl+Z pressed while a move is still on
// its way undoes that move, not the one before.
state.undoQueue = Promise.resolve();
function queued(body) {
  const run = state.undoQueue.then(body);
  state.undoQueue = run.catch(() => {});
  return run;
}

async function renameOperation(path, name) {
  const oldName = path.split("/").pop();
  const renamed = await post("api/rename", { path, name });
  select([renamed.path]);  // the renamed item stays selected, and focused, once listed
  state.refocus = renamed.path;
  return () => renameOperation(renamed.path, oldName);
}

// Moves each `{path, folder}` (those done, when cancelled on the way: progress.js).
async function moveOperation(moves) {
  const back = await eachWithProgress("Moving", moves, async ({ path, folder }) => {
    const moved = await post("api/move", { path, folder });
    return { path: moved.path, folder: path.split("/").slice(0, -1).join("/") };
  });
  return () => moveOperation(back.reverse());
}

async function trashOperation(paths) {
  const trashed = await eachWithProgress("Moving to the Trash", paths,
    async (path) => (await post("api/delete", { path })).trashed);
  const done = paths.slice(0, trashed.length);
  return async () => {
    const back = await eachWithProgress("Putting back", trashed.reverse(),
      (name) => post("api/restore", { trashed: name }));
    return () => trashOperation(done.slice(done.length - back.length));
  };
}

// Copies each item into `folder` (a Ctrl-drag); undoing moves the copies to the Trash, and
// redoing brings them back from it.
async function copyOperation(paths, folder) {
  const copies = await eachWithProgress("Copying", paths,
    async (path) => (await post("api/copy", { path, folder })).path);
  select(copies);
  return () => trashOperation(copies);
}

// Carries out an operation the user asked for, and keeps its inverse for Undo.
function perform(operation) {
  return queued(async () => {
    state.undoSteps.push(await operation());
    state.redoSteps = [];
  });
}

const renameItem = (path, name) => perform(() => renameOperation(path, name));
const moveItems = (paths, folder) => perform(() => moveOperation(paths.map((path) => ({ path, folder }))));
const trashItems = (paths) => perform(() => trashOperation(paths));
const copyItems = (paths, folder) => perform(() => copyOperation(paths, folder));

// Undoes the last step (or redoes the last undone one); its inverse goes on the other stack.
function undoStep(redo) {
  return queued(async () => {
    const [from, to] = redo ? [state.redoSteps, state.undoSteps] : [state.undoSteps, state.redoSteps];
    const inverse = from.pop();
    if (inverse) to.push(await inverse());
  });
}

document.addEventListener("keydown", (event) => {
  if ($("browser").hidden || !(event.ctrlKey || event.metaKey)) return;
  if (event.target.closest("input, textarea, select, dialog")) return;
  const key = event.key.toLowerCase();
  if (key === "z" || key === "y") {
    event.preventDefault();
    attempt(() => undoStep(key === "y" || event.shiftKey));
  }
});
