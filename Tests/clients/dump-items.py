#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Everything a client can read from the provider on DBUS_SESSION_BUS_ADDRESS, as JSON: each
# collection's path, label and items (path, label, attributes, secret in hex, its content
# type, created, modified), and the default alias. Used to compare what gnome-keyring showed
# with what keychaind shows after importing its files, and a backup's source with its
# restore. The in-memory "session" collection is left out.

import json

import secretstorage

connection = secretstorage.dbus_init()
collections = {}
for collection in secretstorage.get_all_collections(connection):
    if collection.collection_path.endswith("/session"):
        continue
    if collection.is_locked():
        collections[collection.collection_path] = "locked"
        continue
    items = {}
    for item_path in collection._collection.get_property("Items"):
        try:
            item = secretstorage.Item(connection, item_path, collection.session)
        except secretstorage.exceptions.ItemNotFoundException:
            # gnome-keyring lists the item its portal backend just made but cannot read it
            # until it has reloaded its file: shown as such, not skipped.
            items[item_path] = "unreadable"
            continue
        items[item_path] = {
            "label": item.get_label(),
            "attributes": item.get_attributes(),
            "secret": item.get_secret().hex(),
            "content_type": item.get_secret_content_type(),
            "created": item.get_created(),
            "modified": item.get_modified(),
        }
    collections[collection.collection_path] = {"label": collection.get_label(), "items": items}
default = secretstorage.get_default_collection(connection).collection_path
print(json.dumps({"collections": collections, "default": default}, sort_keys=True, indent=1))
