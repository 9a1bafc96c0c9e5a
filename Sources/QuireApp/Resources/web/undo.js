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

// What an operation leaves: its `inverse` for the other stack (null if nothing was done), the
// operation for the items it did not reach (`rest`: it was cancelled, or failed on one), and the
// error it failed with.
const step = (inverse, rest = null, error = null) => ({ inverse, rest, error });

// A step over many items (progress.js): the inverse of those done, the rest of those not.
function batchStep({ done, rest, error }, inverse, again) {
  return step(done.length > 0 ? () => inverse(done) : null, rest.length > 0 ? () => again(rest) : null, error);
}

async function renameOperation(path, name) {
  const oldName = path.split("/").pop();
  const renamed = await post("api/rename", { path, name });
  select([renamed.path]);  // the renamed item stays selected, and focused, once listed
  state.refocus = renamed.path;
  return step(() => renameOperation(renamed.path, oldName));
}

// Moves each `{path, folder}`.
async function moveOperation(moves) {
  const batch = await eachWithProgress("Moving", moves, async ({ path, folder }) => {
    const moved = await post("api/move", { path, folder });
    return { path: moved.path, folder: path.split("/").slice(0, -1).join("/") };
  });
  return batchStep(batch, (back) => moveOperation(back.reverse()), moveOperation);
}

async function trashOperation(paths) {
  const batch = await eachWithProgress("Moving to the Trash", paths,
    async (path) => ({ path, trashed: (await post("api/delete", { path })).trashed }));
  return batchStep(batch, (entries) => restoreOperation(entries.reverse()), trashOperation);
}

// Puts back each `{path, trashed}` from the Trash; redoing trashes them again.
async function restoreOperation(entries) {
  const batch = await eachWithProgress("Putting back", entries, async (entry) => {
    await post("api/restore", { trashed: entry.trashed });
    return entry.path;
  });
  return batchStep(batch, (paths) => trashOperation(paths.reverse()), restoreOperation);
}

// Copies each item into `folder` (a Ctrl-drag); undoing moves the copies to the Trash, and
// redoing brings them back from it.
async function copyOperation(paths, folder) {
  const batch = await eachWithProgress("Copying", paths,
    async (path) => (await post("api/copy", { path, folder })).path);
  select(batch.done);
  return batchStep(batch, trashOperation, (rest) => copyOperation(rest, folder));
}

// Carries out an operation the user asked for, and keeps its inverse for Undo (for the items
// done, when it was cancelled or failed on the way: the rest of it is not wanted).
function perform(operation) {
  return queued(async () => {
    const { inverse, error } = await operation();
    if (inverse) {
      state.undoSteps.push(inverse);
      state.redoSteps = [];
    }
    if (error) throw error;
  });
}

const renameItem = (path, name) => perform(() => renameOperation(path, name));
const moveItems = (paths, folder) => perform(() => moveOperation(paths.map((path) => ({ path, folder }))));
const trashItems = (paths) => perform(() => trashOperation(paths));
const copyItems = (paths, folder) => perform(() => copyOperation(paths, folder));

// Undoes the last step (or redoes the last undone one); its inverse goes on the other stack.
// An undo cancelled part-way leaves the rest of it to undo next; one that failed is dropped,
// with the server's message (what it reached is on the other stack).
function undoStep(redo) {
  return queued(async () => {
    const [from, to] = redo ? [state.redoSteps, state.undoSteps] : [state.undoSteps, state.redoSteps];
    const next = from.pop();
    if (!next) return;
    const { inverse, rest, error } = await next();
    if (inverse) to.push(inverse);
    if (rest && !error) from.push(rest);
    if (error) throw error;
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
