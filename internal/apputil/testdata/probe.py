# probe.py: the Python counterpart of preload/testdata/probe.c. It reports the SO_PRIORITY the
# kernel gave its TCP, UDP and accepted sockets, one "name value" line each; "set N" also sets
# SO_PRIORITY N on a TCP socket and reports "set RET PRIORITY"; "set-tos N T U" sets SO_PRIORITY N,
# then IP_TOS T, then IP_TOS U on a TCP socket and reports "set-tos P Q R", its priority after each.
import socket
import sys


def prio(s):
    return s.getsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY)


def main():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        print("tcp", prio(s))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        print("udp", prio(s))
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        with socket.create_connection(listener.getsockname()):
            conn, _ = listener.accept()
            with conn:
                print("accepted", prio(conn))
    if len(sys.argv) == 3 and sys.argv[1] == "set":
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, int(sys.argv[2]))
            print("set", 0, prio(s))
    if len(sys.argv) == 5 and sys.argv[1] == "set-tos":
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, int(sys.argv[2]))
            after = [prio(s)]
            for tos in sys.argv[3:]:
                s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(tos))
                after.append(prio(s))
            print("set-tos", *after)


main()
