"use strict";
// The Quire app's page, part 7: Undo and Redo in the browser (Ctrl+Z, Ctrl+Shift+Z or Ctrl+Y),
// as Finder undoes a rename, a move, a copy or a move to the Trash. The app keeps the steps, in
// an UndoManager (BrowserUndo.swift): each operation here is one `step`, named in every request
// it makes (one per item), and the app files the inverse of what each request did under it. So
// Ctrl+Z takes back the whole operation (the items it reached, when it was cancelled or failed
// on the way), and the steps outlive the page: a reload, or a second window, undoes them too.

// Operations, undos and redos run one after another: Ctrl+Z pressed while a move is still on
// its way undoes that move, not the one before.
state.undoQueue = Promise.resolve();
function queued(body) {
  const run = state.undoQueue.then(body);
  state.undoQueue = run.catch(() => {});
  return run;
}

// Steps are named uniquely across pages, as the app hears from every window.
const stepPrefix = Math.random().toString(36).slice(2);
let stepCount = 0;

async function renameOperation(path, name, step) {
  const renamed = await post("api/rename", { path, name, step });
  select([renamed.path]);  // the renamed item stays selected, and focused, once listed
  state.refocus = renamed.path;
}

// Runs `each` on the items with progress (progress.js), and throws what stopped it, if anything
// did: what was done is already filed for Undo.
async function eachItem(verb, items, each) {
  const { done, error } = await eachWithProgress(verb, items, each);
  if (error) throw error;
  return done;
}

const moveOperation = (paths, folder, step) =>
  eachItem("Moving", paths, (path) => post("api/move", { path, folder, step }));

const trashOperation = (paths, step) =>
  eachItem("Moving to the Trash", paths, (path) => post("api/delete", { path, step }));

// Copies each item into `folder` (a Ctrl-drag); undoing moves the copies to the Trash, and
// redoing brings them back from it.
async function copyOperation(paths, folder, step) {
  const { done, error } = await eachWithProgress("Copying", paths,
    async (path) => (await post("api/copy", { path, folder, step })).path);
  select(done);
  if (error) throw error;
}

// Carries out an operation the user asked for, as one step for Undo.
function perform(operation) {
  return queued(() => operation(`${stepPrefix}-${++stepCount}`));
}

const renameItem = (path, name) => perform((step) => renameOperation(path, name, step));
const moveItems = (paths, folder) => perform((step) => moveOperation(paths, folder, step));
const trashItems = (paths) => perform((step) => trashOperation(paths, step));
const copyItems = (paths, folder) => perform((step) => copyOperation(paths, folder, step));
const putBack = (trashed) => perform((step) => post("api/restore", { trashed, step }));

// Undoes the last step (or redoes the last undone one), in the app, and selects the items where
// it left them. A step that no longer applies in part fails with the app's message; the rest of
// it is done.
function undoStep(redo) {
  return queued(async () => {
    const { paths } = await post(redo ? "api/redo" : "api/undo", {});
    if (paths.length > 0) select(paths);
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
