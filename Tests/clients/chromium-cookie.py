#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Headless Chromium with its libsecret password store, as a desktop user runs it: Chromium keeps
# the key it encrypts cookies and passwords with in the keyring ("Chromium Safe Storage"). This
# serves a page on 127.0.0.1 and has Chromium load it with the given profile:
#   set    the page sets a cookie (Chromium encrypts it with the keyring's key)
#   show   the page shows the cookies Chromium has (it must decrypt them with that key)
# Prints the page's text (the cookies), then one line per cookie as stored in the profile's
# Cookies database: name and the first three bytes of its encrypted value ("v11": encrypted
# with the key from the keyring). Arguments: set|show, the profile directory, and optionally
# the password store (default gnome-libsecret; kwallet5 is what Chromium picks on KDE).

import http.server
import os
import sqlite3
import subprocess
import sys
import threading

MODE, PROFILE = sys.argv[1], sys.argv[2]
STORE = sys.argv[3] if len(sys.argv) > 3 else "gnome-libsecret"
PAGES = {
    "/set": '<script>document.cookie="session=abc; max-age=3600";'
            'document.body.innerText=document.cookie</script>',
    "/show": "<script>document.body.innerText=document.cookie</script>",
}


class Pages(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = ("<html><body>" + PAGES.get(self.path, "") + "</body></html>").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Pages)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_port}/{MODE}"
# --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
done = subprocess.run(
    ["/usr/bin/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
     f"--password-store={STORE}", f"--user-data-dir={PROFILE}", "--dump-dom", url],
    capture_output=True, text=True, timeout=120)
if done.returncode != 0:
    print(f"chromium exited {done.returncode}: {done.stderr[-2000:]}", file=sys.stderr)
    sys.exit(1)
text = done.stdout.replace("<html><head></head><body>", "").replace("</body></html>", "")
print(text.strip())
database = sqlite3.connect(os.path.join(PROFILE, "Default", "Cookies"))
for name, prefix in database.execute("SELECT name, substr(encrypted_value, 1, 3) FROM cookies"):
    print(name, prefix.decode(errors="replace"))
