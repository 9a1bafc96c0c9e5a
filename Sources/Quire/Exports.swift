// What `import Quire` gives besides this module: its errors, the merge, the type registry and
// the other pure pieces it shares with the sync server (QuireCore).
@_exported import QuireCore
