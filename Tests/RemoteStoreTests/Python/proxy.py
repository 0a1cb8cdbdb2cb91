"""A TCP proxy on loopback between a client and a server, for fault tests.

    proxy.py TARGET_PORT LOG_FILE

Prints "listening on PORT", then reads commands on standard input, one a line, and answers
"COMMAND ok" to each:
  stall   stop forwarding in both directions (connections stay open)
  resume  forward again (what was held back goes on)
  cut     close every open connection, both ends
It writes the request line and whether an Authorization header came with it of every
connection's first request to LOG_FILE ("GET /a.json?x=1 bearer=yes"). It ends when its
standard input closes.
"""
import asyncio
import sys

flowing = asyncio.Event()
flowing.set()
open_pairs = set()


async def forward(reader, writer, first_request=None):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if first_request is not None:
                first_request(data)
                first_request = None
            await flowing.wait()
            writer.write(data)
            await writer.drain()
    except Exception:  # the other end went away (or the test cut it)
        pass
    finally:
        writer.close()


def log_request(path):
    def log(data):
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        bearer = any(h.lower().startswith("authorization: bearer ") for h in head[1:])
        with open(path, "a") as out:
            out.write("%s bearer=%s\n" % (head[0], "yes" if bearer else "no"))
    return log


def handler(target, log_path):
    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target)
        except OSError:
            client_writer.close()
            return
        pair = (client_writer, server_writer)
        open_pairs.add(pair)
        try:
            await asyncio.gather(
                forward(client_reader, server_writer, log_request(log_path)),
                forward(server_reader, client_writer),
            )
        finally:
            open_pairs.discard(pair)
    return handle


async def main():
    target, log_path = int(sys.argv[1]), sys.argv[2]
    server = await asyncio.start_server(handler(target, log_path), "127.0.0.1", 0)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    commands = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)
    while True:
        line = await commands.readline()
        if not line:
            break
        command = line.decode().strip()
        if command == "stall":
            flowing.clear()
        elif command == "resume":
            flowing.set()
        elif command == "cut":
            for pair in list(open_pairs):
                for writer in pair:
                    writer.transport.abort()
        else:
            print("unknown command %r" % command, flush=True)
            continue
        print("%s ok" % command, flush=True)
    server.close()


asyncio.run(main())
