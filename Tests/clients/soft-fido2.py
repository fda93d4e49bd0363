#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# A software FIDO2 authenticator for the tests: CTAPHID framing over a Unix SOCK_SEQPACKET
# socket (one 64-byte report per packet; libfido2's writes carry a leading report id), and the
# CTAP 2.0 commands a hmac-secret key slot uses: getInfo, makeCredential and getAssertion with
# the hmac-secret extension, and clientPIN (protocol 1: key agreement, retries, PIN token).
# keychaind reaches it through libfido2's own code, with only the transport replaced
# (keychaind.conf's fido2-device = unix:PATH, which the tests alone set).
#
#   soft-fido2.py SOCKET STATE [--pin PIN] [--deny-presence]
#
# STATE is a JSON file of its credentials, kept across restarts as a key keeps them.

import hashlib
import hmac
import json
import os
import socket
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from fido2 import cbor

REPORT = 64
CTAPHID_PING, CTAPHID_MSG, CTAPHID_INIT, CTAPHID_CBOR = 0x81, 0x83, 0x86, 0x90
CTAPHID_CANCEL, CTAPHID_ERROR, CTAPHID_WINK = 0x91, 0xBF, 0x88
OK, INVALID_COMMAND, INVALID_CBOR = 0x00, 0x01, 0x12
NO_CREDENTIALS, OPERATION_DENIED, PIN_INVALID, PIN_BLOCKED = 0x2E, 0x27, 0x31, 0x32
PIN_AUTH_INVALID, PIN_REQUIRED, MISSING_PARAMETER = 0x33, 0x36, 0x14
AAGUID = bytes.fromhex("6b6579636861696e642d746573742d31")  # "keychaind-test-1"


def aes(key, data, decrypt):
    cipher = Cipher(algorithms.AES(key), modes.CBC(b"\0" * 16))
    op = cipher.decryptor() if decrypt else cipher.encryptor()
    return op.update(data) + op.finalize()


def cose_public(key, alg):
    numbers = key.public_key().public_numbers()
    return {1: 2, 3: alg, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}


def peer_key(cose):
    x, y = int.from_bytes(cose[-2], "big"), int.from_bytes(cose[-3], "big")
    return ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()


class Authenticator:
    def __init__(self, state_path, pin, deny_presence):
        self.state_path = state_path
        self.state = {"credentials": {}, "retries": 8}
        if os.path.exists(state_path):
            with open(state_path) as f:
                self.state = json.load(f)
        self.pin = pin
        self.deny_presence = deny_presence
        self.agreement = ec.generate_private_key(ec.SECP256R1())
        self.pin_token = os.urandom(32)

    def save(self):
        with open(self.state_path + ".new", "w") as f:
            json.dump(self.state, f)
        os.replace(self.state_path + ".new", self.state_path)

    def shared_secret(self, cose):
        point = self.agreement.exchange(ec.ECDH(), peer_key(cose))
        return hashlib.sha256(point).digest()

    def get_info(self, _):
        options = {"rk": False, "up": True, "plat": False, "clientPin": self.pin is not None}
        return OK, {1: ["FIDO_2_0"], 2: ["hmac-secret"], 3: AAGUID, 4: options, 5: 1200, 6: [1]}

    def check_pin_auth(self, request, hash_key, pin_auth_key, required):
        """(error or None, whether the user was verified with the PIN). Without a PIN set,
        or when `required` is false and none is sent (getAssertion), the request goes on
        unverified; a pinAuth that does not check out is refused."""
        auth = request.get(pin_auth_key)
        if self.pin is None or auth is None:
            return (PIN_REQUIRED if self.pin is not None and required else None), False
        expected = hmac.new(self.pin_token, request[hash_key], hashlib.sha256).digest()[:16]
        return (None, True) if hmac.compare_digest(auth, expected) else (PIN_AUTH_INVALID, False)

    def make_credential(self, request):
        error, _ = self.check_pin_auth(request, 1, 8, True)
        if error is not None:
            return error, None
        if self.deny_presence:
            return OPERATION_DENIED, None
        key = ec.generate_private_key(ec.SECP256R1())
        cred_id = os.urandom(32)
        rp_hash = hashlib.sha256(request[2]["id"].encode()).digest()
        self.state["credentials"][cred_id.hex()] = {
            "rp": rp_hash.hex(),
            # CTAP 2.1's two: an hmac-secret with the PIN verified is not the one without.
            "random": os.urandom(32).hex(),
            "random-uv": os.urandom(32).hex(),
            "key": key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption()).decode(),
        }
        self.save()
        extensions = {}
        if (request.get(6) or {}).get("hmac-secret"):
            extensions["hmac-secret"] = True
        flags = 0x01 | 0x40 | (0x80 if extensions else 0) | (0x04 if self.pin else 0)
        auth_data = (rp_hash + bytes([flags]) + struct.pack(">I", 0) + AAGUID
                     + struct.pack(">H", len(cred_id)) + cred_id + cbor.encode(cose_public(key, -7))
                     + (cbor.encode(extensions) if extensions else b""))
        return OK, {1: "none", 2: auth_data, 3: {}}

    def get_assertion(self, request):
        error, verified = self.check_pin_auth(request, 2, 6, False)
        if error is not None:
            return error, None
        rp_hash = hashlib.sha256(request[1].encode()).digest()
        found = None
        for entry in request.get(3) or []:
            credential = self.state["credentials"].get(entry["id"].hex())
            if credential and credential["rp"] == rp_hash.hex():
                found = (entry["id"], credential)
                break
        if found is None:
            return NO_CREDENTIALS, None
        if self.deny_presence:
            return OPERATION_DENIED, None
        cred_id, credential = found
        extensions = {}
        secret_input = (request.get(4) or {}).get("hmac-secret")
        if secret_input:
            shared = self.shared_secret(secret_input[1])
            salt_enc, salt_auth = secret_input[2], secret_input[3]
            if hmac.new(shared, salt_enc, hashlib.sha256).digest()[:16] != salt_auth:
                return INVALID_CBOR, None
            salts = aes(shared, salt_enc, True)
            random = bytes.fromhex(credential["random-uv" if verified else "random"])
            output = b"".join(hmac.new(random, salts[i:i + 32], hashlib.sha256).digest()
                              for i in range(0, len(salts), 32))
            extensions["hmac-secret"] = aes(shared, output, False)
        counter = self.state.get("counter", 0) + 1
        self.state["counter"] = counter
        self.save()
        flags = 0x01 | (0x80 if extensions else 0) | (0x04 if verified else 0)
        auth_data = (rp_hash + bytes([flags]) + struct.pack(">I", counter)
                     + (cbor.encode(extensions) if extensions else b""))
        key = serialization.load_pem_private_key(credential["key"].encode(), None)
        signature = key.sign(auth_data + request[2], ec.ECDSA(hashes.SHA256()))
        return OK, {1: {"id": cred_id, "type": "public-key"}, 2: auth_data, 3: signature}

    def client_pin(self, request):
        sub = request.get(2)
        if sub == 0x01:
            return OK, {3: self.state["retries"]}
        if sub == 0x02:
            return OK, {1: cose_public(self.agreement, -25)}
        if sub == 0x05:
            if self.pin is None:
                return PIN_INVALID, None
            if self.state["retries"] <= 0:
                return PIN_BLOCKED, None
            shared = self.shared_secret(request[3])
            given = aes(shared, request[6], True)
            if given != hashlib.sha256(self.pin.encode()).digest()[:16]:
                self.state["retries"] -= 1
                self.save()
                self.agreement = ec.generate_private_key(ec.SECP256R1())
                return PIN_INVALID, None
            self.state["retries"] = 8
            self.save()
            return OK, {2: aes(shared, self.pin_token, False)}
        return INVALID_COMMAND, None

    def cbor_command(self, payload):
        commands = {0x04: self.get_info, 0x01: self.make_credential, 0x02: self.get_assertion,
                    0x06: self.client_pin}
        command = commands.get(payload[0])
        if command is None:
            return bytes([INVALID_COMMAND])
        request = cbor.decode(payload[1:]) if len(payload) > 1 else {}
        status, response = command(request)
        return bytes([status]) + (cbor.encode(response) if response is not None else b"")


def serve(connection, authenticator):
    """One libfido2 session: CTAPHID messages until the peer closes."""
    channel = 0xFFFFFFFF
    while True:
        packet = connection.recv(REPORT + 1)
        if not packet:
            return
        if len(packet) == REPORT + 1:
            packet = packet[1:]  # the report id
        cid, command = packet[:4], packet[4]
        length = struct.unpack(">H", packet[5:7])[0]
        data = packet[7:]
        while len(data) < length:
            more = connection.recv(REPORT + 1)
            if len(more) == REPORT + 1:
                more = more[1:]
            data += more[5:]
        data = data[:length]
        if command == CTAPHID_INIT:
            channel += 1
            reply = data[:8] + struct.pack(">I", channel & 0xFFFFFFFF) + bytes([2, 1, 0, 0, 0x04])
        elif command == CTAPHID_CBOR:
            reply = authenticator.cbor_command(data)
        elif command in (CTAPHID_PING, CTAPHID_WINK):
            reply = data
        elif command == CTAPHID_CANCEL:
            continue
        else:
            command, reply = CTAPHID_ERROR, bytes([INVALID_COMMAND])
        send(connection, cid, command, reply)


def send(connection, cid, command, payload):
    first = cid + bytes([command]) + struct.pack(">H", len(payload)) + payload[:REPORT - 7]
    connection.send(first.ljust(REPORT, b"\0"))
    rest, sequence = payload[REPORT - 7:], 0
    while rest:
        connection.send((cid + bytes([sequence]) + rest[:REPORT - 5]).ljust(REPORT, b"\0"))
        rest, sequence = rest[REPORT - 5:], sequence + 1


def main():
    arguments = sys.argv[1:]
    path, state = arguments[0], arguments[1]
    pin = arguments[arguments.index("--pin") + 1] if "--pin" in arguments else None
    authenticator = Authenticator(state, pin, "--deny-presence" in arguments)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    if os.path.exists(path):
        os.unlink(path)
    server.bind(path + ".new")
    server.listen(4)
    os.rename(path + ".new", path)  # ready once the socket is at its path
    while True:
        connection, _ = server.accept()
        with connection:
            try:
                serve(connection, authenticator)
            except (ConnectionError, OSError):
                pass


if __name__ == "__main__":
    main()
