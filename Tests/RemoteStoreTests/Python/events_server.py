"""A scripted event-stream server: answers what the test tells it, byte for byte.

    events_server.py

Prints "listening on PORT", then reads JSON commands on standard input, one a line:
  {"respond": STATUS, "type": TYPE, "body": TEXT}  how the next requests are answered
                                                    (default 200 text/event-stream)
  {"initial": TEXT}   the bytes every new stream starts with (default: a put of {"a":1})
  {"get": TEXT}       the JSON body of a plain GET (no text/event-stream asked); answers "ok";
                      the GETs' request lines are kept, and {"gets": true} answers them as JSON
  {"send": TEXT}      TEXT written to every open stream in one write; answers "sent N"
  {"close": true}     closes every open stream; answers "closed N"
  {"requests": true}  answers "requests N": how many requests came so far
Other commands are answered "ok". It ends when its standard input closes.
"""
import asyncio
import json
import sys

state = {
    "status": 200,
    "type": "text/event-stream",
    "body": "",
    "initial": 'event: put\ndata: {"path":"/","data":{"a":1}}\n\n',
    "requests": 0,
    "get": "null",
    "gets": [],
}
streams = set()


async def handle(reader, writer):
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        writer.close()
        return
    state["requests"] += 1
    if b"text/event-stream" not in head.lower():
        state["gets"].append(head.split(b"\r\n")[0].decode())
        body = state["get"].encode()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % len(body) + body)
        await writer.drain()
        writer.close()
        return
    if state["status"] != 200 or state["type"] != "text/event-stream":
        body = state["body"].encode()
        writer.write(b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                     % (state["status"], state["type"].encode(), len(body)) + body)
        await writer.drain()
        writer.close()
        return
    # No length and no chunks: the body is every byte until the connection closes, so each
    # write reaches the client as it was written.
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                 + state["initial"].encode())
    await writer.drain()
    streams.add(writer)
    try:
        await reader.read()  # until the client goes away
    except ConnectionError:
        pass
    finally:
        streams.discard(writer)
        writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print("listening on %d" % server.sockets[0].getsockname()[1], flush=True)
    loop = asyncio.get_running_loop()
    commands = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(commands), sys.stdin)
    while True:
        line = await commands.readline()
        if not line:
            break
        command = json.loads(line)
        answer = "ok"
        if "respond" in command:
            state["status"] = command["respond"]
            state["type"] = command.get("type", "application/json")
            state["body"] = command.get("body", "")
        elif "initial" in command:
            state["initial"] = command["initial"]
        elif "send" in command:
            for writer in list(streams):
                writer.write(command["send"].encode())
            answer = "sent %d" % len(streams)
        elif "close" in command:
            answer = "closed %d" % len(streams)
            for writer in list(streams):
                writer.close()
        elif "get" in command:
            state["get"] = command["get"]
        elif "gets" in command:
            answer = json.dumps(state["gets"])
        elif "requests" in command:
            answer = "requests %d" % state["requests"]
        print(answer, flush=True)
    server.close()


asyncio.run(main())
