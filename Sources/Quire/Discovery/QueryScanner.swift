import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Walks folders for a ``DocumentQuery``: one `readdir` and one `fstatat` per entry, plus the
/// tags attribute. Packages are single items (never entered); hidden entries are skipped.
struct QueryScanner {
  let registry: TypeRegistry
  private var typeByExtension: [String: ContentType?] = [:]

  init(registry: TypeRegistry) { self.registry = registry }

  /// The item at `path`, or nil if nothing (visible) is there.
  mutating func item(at path: String) -> DocumentQuery.Item? {
    var info = stat()
    guard stat(path, &info) == 0 else { return placeholderItem(at: path) }
    let name = (path as NSString).lastPathComponent
    return item(path: path, name: name, info: info)
  }

  /// Appends every item under the folder at `path` to `items`, in walk order; `found` runs after
  /// each. Stops early when the task is cancelled (the caller checks, and must not trust a
  /// partial walk).
  ///
  /// With `known` (the items from before, by path), an entry whose status change time,
  /// modification time and size are those of its known item is that item again: its attributes
  /// are not read, so a reconcile of an unchanged tree costs about one `fstatat` per entry.
  mutating func scan(
    _ path: String, into items: inout [DocumentQuery.Item],
    known: [String: DocumentQuery.Item] = [:], found: (Int) -> Void = { _ in }
  ) {
    guard !Task.isCancelled, let directory = opendir(path) else { return }
    defer { closedir(directory) }
    let fd = dirfd(directory)
    var folders: [String] = []
    while let entry = readdir(directory) {
      guard let namePointer = cquire_dirent_name(entry) else { continue }
      if namePointer.pointee == CChar(UInt8(ascii: ".")) {  // hidden, ".", "..": or in the cloud
        let name = String(cString: namePointer)
        guard CloudPlaceholder.isPlaceholderName(name),
          let document = CloudPlaceholder.documentURL(
            forPlaceholder: URL(fileURLWithPath: path == "/" ? "/" + name : path + "/" + name)),
          let item = placeholderItem(at: document.path)
        else { continue }
        items.append(item)
        found(items.count)
        continue
      }
      var info = stat()
      guard fstatat(fd, namePointer, &info, 0) == 0 else { continue }
      let name = String(cString: namePointer)
      let child = path == "/" ? "/" + name : path + "/" + name
      let item: DocumentQuery.Item
      if let old = known[child], old.size == Int64(info.st_size),
        old.creationDate == Date(info.st_ctim), old.modificationDate == Date(info.st_mtim)
      {
        item = old  // tags and identity changes move the status change time too
      } else {
        guard let fresh = self.item(path: child, name: name, info: info) else { continue }
        item = fresh
      }
      items.append(item)
      found(items.count)
      if item.isFolder { folders.append(child) }
    }
    for folder in folders { scan(folder, into: &items, known: known, found: found) }
  }

  /// The document at `path` that is in the cloud, from its placeholder (nil if it has none,
  /// or if the document itself is here).
  private mutating func placeholderItem(at path: String) -> DocumentQuery.Item? {
    let url = URL(fileURLWithPath: path)
    guard let placeholder = CloudPlaceholder.find(for: url) else { return nil }
    let type = contentType(forName: url.lastPathComponent)
    var item = DocumentQuery.Item(
      path: path, contentType: type?.identifier ?? "public.data", isFolder: false,
      size: placeholder.size, creationDate: placeholder.modified,
      modificationDate: placeholder.modified, tags: placeholder.tags)
    item.identity = placeholder.identity
    item.isPlaceholder = true
    item.downloadingStatus = .notDownloaded
    item.percentDownloaded = 0
    return item
  }

  private mutating func item(path: String, name: String, info: stat) -> DocumentQuery.Item? {
    guard !name.hasPrefix(".") else { return nil }
    let isDirectory = info.st_mode & S_IFMT == S_IFDIR
    var type = contentType(forName: name)
    var isFolder = false
    if isDirectory && !(type?.isPackage ?? false) {
      isFolder = true
      type = nil
    }
    let identifier = type?.identifier ?? (isFolder ? "public.folder" : "public.data")
    var tags: [String] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    let count = cquire_getxattr(path, Tags.attributeName, &buffer, buffer.count)
    if count > 0 {
      tags = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: ",")
        .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    } else if count < 0 && cquire_errno() == ERANGE {
      tags = (try? Tags.tags(of: URL(fileURLWithPath: path))) ?? []
    }
    var item = DocumentQuery.Item(
      path: path, contentType: identifier, isFolder: isFolder, size: Int64(info.st_size),
      creationDate: Date(info.st_ctim), modificationDate: Date(info.st_mtim), tags: tags)
    if !isFolder {
      let length = cquire_getxattr(path, DocumentIdentity.attribute, &buffer, buffer.count)
      if length > 0 { item.identity = String(decoding: buffer[0..<length], as: UTF8.self) }
    }
    return item
  }

  private mutating func contentType(forName name: String) -> ContentType? {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    let ext = String(name[name.index(after: dot)...]).lowercased()
    if let cached = typeByExtension[ext] { return cached }
    let type = registry.type(forFilenameExtension: ext)
    typeByExtension[ext] = type
    return type
  }
}
