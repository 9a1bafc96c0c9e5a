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
  const response = await fetch(path, options);
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) {
    throw new Error(data && data.error ? data.error.message : `The server answered ${response.status}.`);
  }
  return data;
}
const get = (path) => call("GET", path);
const post = (path, body, raw) => call("POST", path, body, raw);
// Spaces as %20, not the form encoding's "+", which the server's query parsing keeps as "+"
// (a literal "+" is %2B here, so nothing else changes).
const query = (params) => new URLSearchParams(params).toString().replace(/\+/g, "%20");

function showError(error) {
  $("message-text").textContent = error.message || String(error);
  $("message").hidden = false;
}
$("message-close").onclick = () => { $("message").hidden = true; };
async function attempt(action) {
  try { return await action(); } catch (error) { showError(error); }
}

