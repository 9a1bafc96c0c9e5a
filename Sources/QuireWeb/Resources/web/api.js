"use strict";
// The Quire app's page, part 1: shared state and the JSON API of the `quire app` server.

const $ = (id) => document.getElementById(id);
const state = {
  folder: "", layout: "grid", offset: 0, total: 0, loading: false, shown: new Map(),
  doc: null, pendingText: null, typingTimer: null, reloadTimer: null,
};
const icons = { mydoc: "MyDoc", text: "Text", album: "Album", sicd: "SICD", folder: "Folder", other: "File" };

async function call(method, path, body, raw) {
  const options = { method, headers: {} };
  if (raw) { options.body = raw; } else if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  return answer(await fetch(path, options));
}

// The JSON of a server's answer, or its error as an Error.
async function answer(response) {
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) {
    throw new Error(data && data.error ? data.error.message : `The server answered ${response.status}.`);
  }
  return data;
}
// A GET: the page's early request if it asked for the same path (early.js), else a new one.
const get = (path) => takeEarly(path)?.then(answer) ?? call("GET", path);
const post = (path, body, raw) => call("POST", path, body, raw);

function showError(error) {
  $("message-text").textContent = error.message || String(error);
  $("message").hidden = false;
}
$("message-close").onclick = () => { $("message").hidden = true; };
async function attempt(action) {
  try { return await action(); } catch (error) { showError(error); }
}

