"""Tries to reach the internet."""

import socket


def solve(instance):
    socket.create_connection(("1.1.1.1", 53), timeout=2).close()
    return {"moves": []}
