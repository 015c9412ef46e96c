#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "classify.h"
#include "testlib.h"

/* The classifier table, case by case: the real exception texts of the five
 * SDK languages' HTTP, database and gRPC clients (timeouts, resets, refused
 * connections, name resolution, TLS, 4xx/5xx), each with the library and
 * the file or symbol that produces it, then the fixtures' messages and the
 * ordering decisions. Error types are spelled as each SDK records them: Go
 * fmt.Sprintf("%T", err) (durabletask-go task/executor.go), Python
 * type(ex).__name__ (durabletask-python internal/helpers.py
 * new_failure_details), .NET and Java the full class name, JavaScript the
 * error's name. Host names, addresses and sizes are example values.
 *
 * A source starts with its language ("Go:", "Python:", ".NET:", "Java:",
 * "JS:"); "fixture:" marks a message from tests/fixtures, "policy:" a case
 * written to pin an ordering decision. */

/* What the want column means. NOT_SENT is FAILURE_SAFE: a failure that
 * provably happened before the request reached the remote side, a class
 * of its own (issue 16), no longer folded into unknown. */
#define AMBIGUOUS FAILURE_AMBIGUOUS
#define PERMANENT FAILURE_PERMANENT
#define NOT_SENT FAILURE_SAFE
#define UNKNOWN FAILURE_UNKNOWN

struct tcase {
	const char *source;
	const char *type;
	const char *message;
	const char *cause_type; /* innermost innerFailure, or NULL */
	const char *cause_message;
	bool non_retriable;
	enum failure_class want;
};

#define R(src, type, msg, want)                         \
	{                                               \
		src, type, msg, NULL, NULL, false, want \
	}
#define CHAIN(src, type, msg, ctype, cmsg, want)         \
	{                                                \
		src, type, msg, ctype, cmsg, false, want \
	}

static const struct tcase cases[] = {
	/* ---- Go: net/http, net, crypto/tls, grpc-go. An activity returns the
	 * client's error; the SDK records its %T and its text. */
	R("Go: net/http client.go *url.Error over net.OpError read, syscall ECONNRESET", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": read tcp 10.0.0.2:51234->10.0.0.5:443: read: connection "
	  "reset by peer",
	  AMBIGUOUS),
	R("Go: net/http transport.go persistConn.readLoop io.EOF", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": EOF", AMBIGUOUS),
	R("Go: net/http transport.go errServerClosedIdle", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": http: server closed idle connection", AMBIGUOUS),
	R("Go: net/http client.go Client.Timeout (before Go 1.23)", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": net/http: request canceled (Client.Timeout exceeded while "
	  "awaiting headers)",
	  AMBIGUOUS),
	R("Go: net/http client.go timeoutError (Go 1.23+)", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": context deadline exceeded (Client.Timeout exceeded while "
	  "awaiting headers)",
	  AMBIGUOUS),
	R("Go: net/http transport.go Transport.ResponseHeaderTimeout", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": net/http: timeout awaiting response headers", AMBIGUOUS),
	R("Go: net fd read deadline, os.ErrDeadlineExceeded \"i/o timeout\"", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": read tcp 10.0.0.2:51234->10.0.0.5:443: i/o timeout",
	  AMBIGUOUS),
	R("Go: net.OpError write, syscall EPIPE", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": write tcp 10.0.0.2:51234->10.0.0.5:443: write: broken pipe",
	  AMBIGUOUS),
	R("Go: net/http transport.go persistConn.readLoop \"transport connection broken\"", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": net/http: HTTP/1.x transport connection broken: malformed "
	  "HTTP response \"\\x00\\x00\\x12\\x04\"",
	  AMBIGUOUS),
	R("Go: x/net/http2 transport.go GoAwayError", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": http2: server sent GOAWAY and closed the connection; "
	  "LastStreamID=1, ErrCode=NO_ERROR, debug=\"\"",
	  AMBIGUOUS),
	R("Go: io.ErrUnexpectedEOF", "*url.Error", "Post \"https://psp.example.net/v2/charges\": unexpected EOF",
	  AMBIGUOUS),
	R("Go: net.OpError dial, syscall ECONNREFUSED", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": dial tcp 10.0.0.5:443: connect: connection refused",
	  NOT_SENT),
	R("Go: net dnsclient errNoSuchHost", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": dial tcp: lookup psp.example.net on 10.96.0.10:53: no such "
	  "host",
	  NOT_SENT),
	R("Go: net.Dialer timeout (dial, not read)", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": dial tcp 10.0.0.5:443: i/o timeout", NOT_SENT),
	R("Go: net/http transport.go tlsHandshakeTimeoutError", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": net/http: TLS handshake timeout", NOT_SENT),
	R("Go: crypto/tls handshake_client.go + crypto/x509 UnknownAuthorityError", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": tls: failed to verify certificate: x509: certificate signed "
	  "by unknown authority",
	  NOT_SENT),
	R("Go: crypto/tls alert.go alertHandshakeFailure", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": remote error: tls: handshake failure", NOT_SENT),
	R("Go: crypto/x509 HostnameError", "*url.Error",
	  "Post \"https://psp.example.net/v2/charges\": x509: certificate is valid for api.example.org, not "
	  "psp.example.net",
	  NOT_SENT),
	R("Go: grpc-go internal/transport http2_client.go dial error", "*status.Error",
	  "rpc error: code = Unavailable desc = connection error: desc = \"transport: Error while dialing: dial tcp "
	  "10.0.0.9:50001: connect: connection refused\"",
	  NOT_SENT),
	R("Go: grpc-go internal/transport http2_client.go reader", "*status.Error",
	  "rpc error: code = Unavailable desc = error reading from server: EOF", AMBIGUOUS),
	R("Go: grpc-go status.FromContextError", "*status.Error",
	  "rpc error: code = DeadlineExceeded desc = context deadline exceeded", AMBIGUOUS),
	R("Go: grpc-go rpc_util.go recvAndDecompress (the call ran; its reply was too big)", "*status.Error",
	  "rpc error: code = ResourceExhausted desc = grpc: received message larger than max (5242880 vs. 4194304)",
	  AMBIGUOUS),
	R("Go: grpc-go rpc_util.go decompress limit", "*status.Error",
	  "rpc error: code = ResourceExhausted desc = grpc: received message after decompression larger than max "
	  "(5242880 vs. 4194304)",
	  AMBIGUOUS),
	R("Go: grpc-go stream.go prepareMsg (refused before sending)", "*status.Error",
	  "rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (5242880 vs. "
	  "4194304)",
	  NOT_SENT),
	R("Go: Google API quota refusal, code ResourceExhausted", "*status.Error",
	  "rpc error: code = ResourceExhausted desc = Quota exceeded for quota metric 'Write requests' and limit "
	  "'Write requests per minute'",
	  NOT_SENT),
	R("Go: grpc-go http2_client.go handleRSTStream", "*status.Error",
	  "rpc error: code = Internal desc = stream terminated by RST_STREAM with error code: INTERNAL_ERROR",
	  AMBIGUOUS),
	R("Go: grpc-go status code NotFound", "*status.Error",
	  "rpc error: code = NotFound desc = order 871 not found", PERMANENT),
	R("Go: fmt.Errorf over resp.StatusCode (net/http returns no error for a status)", "*errors.errorString",
	  "unexpected status code 503", AMBIGUOUS),
	R("Go: fmt.Errorf %w over resp.Status", "*fmt.wrapError", "charge: unexpected status code: 404 Not Found",
	  PERMANENT),
	R("Go: fmt.Errorf %w over resp.Status", "*fmt.wrapError",
	  "charge: unexpected status code: 429 Too Many Requests", NOT_SENT),
	/* go-redis internal/pool/pool.go ErrPoolTimeout: no free connection
	 * within PoolTimeout, so no command was written (issue 16). */
	R("Go: go-redis internal/pool ErrPoolTimeout (waitTurn)", "*errors.errorString",
	  "redis: connection pool timeout", NOT_SENT),
	R("Go: go-redis pool timeout wrapped by the activity", "*fmt.wrapError",
	  "reserve stock sku-42: redis: connection pool timeout", NOT_SENT),

	/* ---- Python: requests/urllib3. */
	R("Python: requests adapters.py ConnectionError <- urllib3 ProtocolError <- ConnectionResetError",
	  "ConnectionError", "('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))",
	  AMBIGUOUS),
	R("Python: requests adapters.py ConnectionError <- urllib3 NewConnectionError", "ConnectionError",
	  "HTTPSConnectionPool(host='psp.example.net', port=443): Max retries exceeded with url: /v2/charges (Caused "
	  "by NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d5e50>: Failed to establish "
	  "a new connection: [Errno 111] Connection refused'))",
	  NOT_SENT),
	R("Python: requests ConnectionError <- urllib3 2.x NameResolutionError", "ConnectionError",
	  "HTTPSConnectionPool(host='psp.example.net', port=443): Max retries exceeded with url: /v2/charges (Caused "
	  "by NameResolutionError(\"<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d5e50>: Failed to resolve "
	  "'psp.example.net' ([Errno -2] Name or service not known)\"))",
	  NOT_SENT),
	R("Python: requests ConnectTimeout <- urllib3 ConnectTimeoutError", "ConnectTimeout",
	  "HTTPSConnectionPool(host='psp.example.net', port=443): Max retries exceeded with url: /v2/charges (Caused "
	  "by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object at 0x7f3a2c1d5e50>, 'Connection to "
	  "psp.example.net timed out. (connect timeout=5)'))",
	  NOT_SENT),
	R("Python: requests SSLError <- ssl.SSLCertVerificationError (OpenSSL)", "SSLError",
	  "HTTPSConnectionPool(host='psp.example.net', port=443): Max retries exceeded with url: /v2/charges (Caused "
	  "by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
	  "unable to get local issuer certificate (_ssl.c:1006)')))",
	  NOT_SENT),
	/* An EOF in the TLS layer may come during the handshake or after the
	 * request: the text cannot tell, so the worse is assumed. */
	R("Python: requests SSLError <- ssl.SSLEOFError (OpenSSL 3)", "SSLError",
	  "HTTPSConnectionPool(host='psp.example.net', port=443): Max retries exceeded with url: /v2/charges (Caused "
	  "by SSLError(SSLEOFError(8, '[SSL: UNEXPECTED_EOF_WHILE_READING] EOF occurred in violation of protocol "
	  "(_ssl.c:1006)')))",
	  AMBIGUOUS),
	R("Python: requests models.py ChunkedEncodingError <- urllib3 response.py ProtocolError",
	  "ChunkedEncodingError",
	  "('Connection broken: IncompleteRead(0 bytes read, 512 more expected)', IncompleteRead(0 bytes read, 512 "
	  "more expected))",
	  AMBIGUOUS),
	R("Python: requests models.py Response.raise_for_status", "HTTPError",
	  "404 Client Error: Not Found for url: https://psp.example.net/v2/charges/ch_1", PERMANENT),
	R("Python: requests models.py Response.raise_for_status", "HTTPError",
	  "429 Client Error: Too Many Requests for url: https://psp.example.net/v2/charges", NOT_SENT),
	R("Python: requests models.py Response.raise_for_status", "HTTPError",
	  "500 Server Error: Internal Server Error for url: https://psp.example.net/v2/charges", AMBIGUOUS),
	R("Python: requests models.py Response.raise_for_status", "HTTPError",
	  "422 Client Error: Unprocessable Entity for url: https://psp.example.net/v2/charges", PERMANENT),

	/* ---- Python: httpx (httpcore, h11). */
	R("Python: httpx _transports/default.py ConnectError <- httpcore", "ConnectError",
	  "[Errno 111] Connection refused", NOT_SENT),
	R("Python: httpx ConnectError <- socket.gaierror", "ConnectError", "[Errno -2] Name or service not known",
	  NOT_SENT),
	R("Python: httpx ConnectError <- ssl.SSLCertVerificationError", "ConnectError",
	  "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain "
	  "(_ssl.c:1006)",
	  NOT_SENT),
	R("Python: httpx ConnectTimeout <- httpcore (socket.timeout \"timed out\")", "ConnectTimeout", "timed out",
	  NOT_SENT),
	R("Python: httpx ReadTimeout <- CPython Modules/_ssl.c \"The read operation timed out\"", "ReadTimeout",
	  "The read operation timed out", AMBIGUOUS),
	R("Python: httpx WriteTimeout <- CPython Modules/_ssl.c", "WriteTimeout", "The write operation timed out",
	  AMBIGUOUS),
	R("Python: httpx PoolTimeout (no connection from the pool: nothing written)", "PoolTimeout", "", NOT_SENT),
	R("Python: httpx RemoteProtocolError <- httpcore _async/http11.py", "RemoteProtocolError",
	  "Server disconnected without sending a response.", AMBIGUOUS),
	R("Python: httpx RemoteProtocolError <- h11 _readers.py ChunkedReader", "RemoteProtocolError",
	  "peer closed connection without sending complete message body (incomplete chunked read)", AMBIGUOUS),
	R("Python: httpx ReadError <- ConnectionResetError", "ReadError", "[Errno 104] Connection reset by peer",
	  AMBIGUOUS),
	R("Python: httpx _models.py Response.raise_for_status", "HTTPStatusError",
	  "Client error '404 Not Found' for url 'https://psp.example.net/v2/charges/ch_1'\nFor more information check: "
	  "https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/404",
	  PERMANENT),
	R("Python: httpx _models.py Response.raise_for_status", "HTTPStatusError",
	  "Server error '503 Service Unavailable' for url 'https://psp.example.net/v2/charges'\nFor more information "
	  "check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/503",
	  AMBIGUOUS),
	R("Python: httpx _models.py Response.raise_for_status", "HTTPStatusError",
	  "Client error '429 Too Many Requests' for url 'https://psp.example.net/v2/charges'\nFor more information "
	  "check: https://developer.mozilla.org/en-US/docs/Web/HTTP/Status/429",
	  NOT_SENT),

	/* ---- Python: aiohttp. */
	R("Python: aiohttp client_exceptions.py ServerDisconnectedError", "ServerDisconnectedError",
	  "Server disconnected", AMBIGUOUS),
	R("Python: aiohttp ClientOSError <- ConnectionResetError", "ClientOSError",
	  "[Errno 104] Connection reset by peer", AMBIGUOUS),
	R("Python: aiohttp client_exceptions.py ClientConnectorError.__str__", "ClientConnectorError",
	  "Cannot connect to host psp.example.net:443 ssl:default [Connection refused]", NOT_SENT),
	R("Python: aiohttp ClientConnectorError <- socket.gaierror", "ClientConnectorError",
	  "Cannot connect to host psp.example.net:443 ssl:default [Name or service not known]", NOT_SENT),
	R("Python: aiohttp ClientConnectorError <- asyncio \"Connect call failed\"", "ClientConnectorError",
	  "Cannot connect to host psp.example.net:443 ssl:default [Connect call failed ('10.0.0.5', 443)]",
	  NOT_SENT),
	R("Python: aiohttp ClientConnectorCertificateError", "ClientConnectorCertificateError",
	  "Cannot connect to host psp.example.net:443 ssl:True [SSLCertVerificationError: (1, '[SSL: "
	  "CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate "
	  "(_ssl.c:1006)')]",
	  NOT_SENT),
	R("Python: aiohttp client_proto.py ServerTimeoutError (sock_read)", "ServerTimeoutError",
	  "Timeout on reading data from socket", AMBIGUOUS),
	R("Python: aiohttp 3.10 client.py ConnectionTimeoutError (sock_connect)", "ConnectionTimeoutError",
	  "Connection timeout to host https://psp.example.net/v2/charges", NOT_SENT),
	R("Python: aiohttp ClientTimeout(total) -> asyncio TimeoutError, no message", "TimeoutError", "",
	  AMBIGUOUS),
	R("Python: aiohttp client_exceptions.py ClientResponseError.__str__ (raise_for_status)",
	  "ClientResponseError", "503, message='Service Unavailable', url='https://psp.example.net/v2/charges'",
	  AMBIGUOUS),
	R("Python: aiohttp ClientResponseError (raise_for_status)", "ClientResponseError",
	  "404, message='Not Found', url='https://psp.example.net/v2/charges/ch_1'", PERMANENT),
	/* The 400 inside is aiohttp's parser code for a short body, not an
	 * answer: the reply was cut off. */
	R("Python: aiohttp ClientPayloadError <- http_parser ContentLengthError", "ClientPayloadError",
	  "Response payload is not completed: <ContentLengthError: 400, message='Not enough data for satisfy content "
	  "length header.'>",
	  AMBIGUOUS),

	/* ---- Python: asyncpg. protocol/protocol.pyx _on_connection_lost
	 * (via asyncpg.exceptions.ConnectionDoesNotExistError) when the socket
	 * closes while a statement is in flight: like libpq's "server closed
	 * the connection unexpectedly", the statement may have run. */
	R("Python: asyncpg protocol.pyx ConnectionDoesNotExistError", "ConnectionDoesNotExistError",
	  "connection was closed in the middle of operation", AMBIGUOUS),
	/* ---- Python: psycopg2 over libpq, and the server's own errors. */
	R("Python: psycopg2 OperationalError <- libpq fe-misc.c pqReadData", "OperationalError",
	  "server closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n\tbefore "
	  "or while processing the request.\n",
	  AMBIGUOUS),
	R("Python: psycopg2 <- libpq fe-secure-openssl.c pgtls_read", "OperationalError",
	  "SSL SYSCALL error: EOF detected\n", AMBIGUOUS),
	R("Python: psycopg2 <- libpq fe-secure-openssl.c", "OperationalError",
	  "SSL connection has been closed unexpectedly\n", AMBIGUOUS),
	R("Python: psycopg2 <- libpq fe-secure.c pqsecure_raw_read", "OperationalError",
	  "could not receive data from server: Connection reset by peer\n", AMBIGUOUS),
	R("Python: psycopg2 <- libpq before 14 fe-connect.c connectFailureMessage", "OperationalError",
	  "could not connect to server: Connection refused\n\tIs the server running on host \"db\" (10.0.0.7) and "
	  "accepting\n\tTCP/IP connections on port 5432?\n",
	  NOT_SENT),
	R("Python: psycopg2 <- libpq 14+ fe-connect.c", "OperationalError",
	  "connection to server at \"db\" (10.0.0.7), port 5432 failed: Connection refused\n\tIs the server running "
	  "on that host and accepting TCP/IP connections?\n",
	  NOT_SENT),
	R("Python: psycopg2 <- libpq fe-connect.c (name lookup)", "OperationalError",
	  "could not translate host name \"db\" to address: Name or service not known\n", NOT_SENT),
	R("Python: psycopg2 <- libpq 14+ connect_timeout", "OperationalError",
	  "connection to server at \"db\" (10.0.0.7), port 5432 failed: timeout expired\n", NOT_SENT),
	R("Python: psycopg2 <- libpq before 14 connect_timeout", "OperationalError", "timeout expired\n",
	  NOT_SENT),
	R("Python: psycopg2 QueryCanceled <- PostgreSQL postgres.c ProcessInterrupts", "QueryCanceled",
	  "canceling statement due to statement timeout\n", AMBIGUOUS),

	/* ---- Python: the socket layer and grpcio. */
	R("Python: CPython OSError ECONNRESET (Linux)", "ConnectionResetError",
	  "[Errno 104] Connection reset by peer", AMBIGUOUS),
	R("Python: CPython OSError WSAECONNRESET (Windows)", "ConnectionResetError",
	  "[WinError 10054] An existing connection was forcibly closed by the remote host", AMBIGUOUS),
	R("Python: CPython OSError ECONNREFUSED", "ConnectionRefusedError", "[Errno 111] Connection refused",
	  NOT_SENT),
	R("Python: socket.gaierror EAI_NONAME (macOS)", "gaierror",
	  "[Errno 8] nodename nor servname provided, or not known", NOT_SENT),
	R("Python: socket.gaierror EAI_AGAIN (glibc)", "gaierror",
	  "[Errno -3] Temporary failure in name resolution", NOT_SENT),
	R("Python: socket.gaierror (Windows) Modules/socketmodule.c", "gaierror",
	  "[Errno 11001] getaddrinfo failed", NOT_SENT),
	R("Python: socket.timeout / TimeoutError \"timed out\"", "TimeoutError", "timed out", AMBIGUOUS),
	/* "RPC that terminated with" must not read as undici's whole
	 * "terminated". */
	R("Python: grpcio _channel.py _InactiveRpcError <- C-core connect failure", "_InactiveRpcError",
	  "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.UNAVAILABLE\n\tdetails = \"failed "
	  "to connect to all addresses; last error: UNKNOWN: ipv4:10.0.0.9:50001: Failed to connect to remote host: "
	  "Connection refused\"\n>",
	  NOT_SENT),
	R("Python: grpcio _InactiveRpcError <- C-core message_size_filter \"Received message larger than max\"",
	  "_InactiveRpcError",
	  "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.RESOURCE_EXHAUSTED\n\tdetails = "
	  "\"Received message larger than max (5242880 vs. 4194304)\"\n>",
	  AMBIGUOUS),
	R("Python: grpcio _InactiveRpcError <- C-core message_size_filter \"Sent message larger than max\"",
	  "_InactiveRpcError",
	  "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.RESOURCE_EXHAUSTED\n\tdetails = "
	  "\"Sent message larger than max (5242880 vs. 4194304)\"\n>",
	  NOT_SENT),
	R("Python: grpcio _InactiveRpcError, StatusCode.DEADLINE_EXCEEDED", "_InactiveRpcError",
	  "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.DEADLINE_EXCEEDED\n\tdetails = "
	  "\"Deadline Exceeded\"\n>",
	  AMBIGUOUS),
	R("Python: grpcio _InactiveRpcError, StatusCode.NOT_FOUND", "_InactiveRpcError",
	  "<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.NOT_FOUND\n\tdetails = \"order "
	  "871\"\n>",
	  PERMANENT),

	/* ---- Python: bugs in the activity, whatever names they quote. */
	R("Python: CPython Python/ceval.c unexpected keyword argument", "TypeError",
	  "charge_card() got an unexpected keyword argument 'timeout'", PERMANENT),
	R("Python: CPython Python/ceval.c missing_arguments", "TypeError",
	  "charge_card() missing 1 required positional argument: 'host'", PERMANENT),
	R("Python: CPython Objects/abstract.c binop_type_error", "TypeError",
	  "unsupported operand type(s) for +: 'int' and 'str'", PERMANENT),
	R("Python: CPython Objects/abstract.c PyObject_GetItem", "TypeError",
	  "'NoneType' object is not subscriptable", PERMANENT),
	R("Python: Lib/json/encoder.py JSONEncoder.default", "TypeError",
	  "Object of type Decimal is not JSON serializable", PERMANENT),
	R("Python: CPython Objects/object.c PyObject_GetAttr", "AttributeError",
	  "'NoneType' object has no attribute 'timeout'", PERMANENT),

	/* ---- .NET: System.Net.Http (SR resource names), sockets, SslStream,
	 * Grpc.Net.Client, SqlClient. */
	R(".NET: System.Net.Http SR.net_http_client_execution_error", "System.Net.Http.HttpRequestException",
	  "An error occurred while sending the request.", AMBIGUOUS),
	R(".NET: System.Net.Http SR.net_http_content_stream_copy_error", "System.Net.Http.HttpRequestException",
	  "Error while copying content to a stream.", AMBIGUOUS),
	R(".NET: System.Net.Sockets SR.net_io_readfailure (Windows text)", "System.IO.IOException",
	  "Unable to read data from the transport connection: An existing connection was forcibly closed by the "
	  "remote host..",
	  AMBIGUOUS),
	R(".NET: System.Net.Sockets SR.net_io_writefailure (Linux text)", "System.IO.IOException",
	  "Unable to write data to the transport connection: Broken pipe.", AMBIGUOUS),
	R(".NET: SocketException (10054) WSAECONNRESET", "System.Net.Sockets.SocketException",
	  "An existing connection was forcibly closed by the remote host.", AMBIGUOUS),
	R(".NET: SocketException (104) ECONNRESET (Linux)", "System.Net.Sockets.SocketException",
	  "Connection reset by peer", AMBIGUOUS),
	R(".NET: SocketException text with its code, as ToString() prints it", "System.IO.IOException",
	  "System.Net.Sockets.SocketException (10054)", AMBIGUOUS),
	R(".NET: System.Net.Http SR.net_http_invalid_response_premature_eof", "System.IO.IOException",
	  "The response ended prematurely.", AMBIGUOUS),
	R(".NET: System.Net.Http SR.net_http_http2_stream_error", "System.Net.Http.HttpRequestException",
	  "The HTTP/2 server reset the stream. HTTP/2 error code 'INTERNAL_ERROR' (0x2).", AMBIGUOUS),
	R(".NET: HttpClient.Timeout (HttpClient.cs HandleFailure)", "System.Threading.Tasks.TaskCanceledException",
	  "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.", AMBIGUOUS),
	R(".NET: SocketException (10060) WSAETIMEDOUT", "System.Net.Sockets.SocketException",
	  "A connection attempt failed because the connected party did not properly respond after a period of time, "
	  "or established connection failed because connected host has failed to respond.",
	  AMBIGUOUS),
	R(".NET: System.Net.Http SR.net_http_message_not_success_statuscode_reason",
	  "System.Net.Http.HttpRequestException",
	  "Response status code does not indicate success: 503 (Service Unavailable).", AMBIGUOUS),
	R(".NET: SR.net_http_message_not_success_statuscode_reason", "System.Net.Http.HttpRequestException",
	  "Response status code does not indicate success: 404 (Not Found).", PERMANENT),
	R(".NET: SR.net_http_message_not_success_statuscode_reason", "System.Net.Http.HttpRequestException",
	  "Response status code does not indicate success: 429 (Too Many Requests).", NOT_SENT),
	R(".NET: SocketsHttpHandler connect failure, WSAECONNREFUSED (10061) text",
	  "System.Net.Http.HttpRequestException",
	  "No connection could be made because the target machine actively refused it. (localhost:5001)",
	  NOT_SENT),
	R(".NET: SocketsHttpHandler connect failure, ECONNREFUSED (Linux)", "System.Net.Http.HttpRequestException",
	  "Connection refused (localhost:5001)", NOT_SENT),
	R(".NET: SocketsHttpHandler connect failure, WSAHOST_NOT_FOUND (11001)",
	  "System.Net.Http.HttpRequestException", "No such host is known. (psp.example.net:443)", NOT_SENT),
	R(".NET: SocketsHttpHandler connect failure, EAI_NONAME (Linux)", "System.Net.Http.HttpRequestException",
	  "Name or service not known (psp.example.net:443)", NOT_SENT),
	R(".NET: System.Net.Http SR.net_http_ssl_connection_failed", "System.Net.Http.HttpRequestException",
	  "The SSL connection could not be established, see inner exception.", NOT_SENT),
	R(".NET: System.Net.Security SslStream certificate validation",
	  "System.Security.Authentication.AuthenticationException",
	  "The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot", NOT_SENT),
	R(".NET: System.Net.Security SR.net_auth_eof (handshake)",
	  "System.Security.Authentication.AuthenticationException",
	  "Authentication failed because the remote party has closed the transport stream.", NOT_SENT),
	R(".NET: Grpc.Net.Client ReceivedMessageExceedsLimitStatus", "Grpc.Core.RpcException",
	  "Status(StatusCode=\"ResourceExhausted\", Detail=\"Received message exceeds the maximum configured message "
	  "size.\")",
	  AMBIGUOUS),
	R(".NET: Grpc.Net.Client SendingMessageExceedsLimitStatus", "Grpc.Core.RpcException",
	  "Status(StatusCode=\"ResourceExhausted\", Detail=\"Sending message exceeds the maximum configured message "
	  "size.\")",
	  NOT_SENT),
	R(".NET: Grpc.Net.Client GrpcCall \"Error starting gRPC call\"", "Grpc.Core.RpcException",
	  "Status(StatusCode=\"Unavailable\", Detail=\"Error starting gRPC call. HttpRequestException: Connection "
	  "refused SocketException: Connection refused\")",
	  NOT_SENT),
	R(".NET: Grpc.Core.RpcException DeadlineExceeded", "Grpc.Core.RpcException",
	  "Status(StatusCode=\"DeadlineExceeded\", Detail=\"\")", AMBIGUOUS),
	/* A command timeout ran on the server: not libpq's connect timeout. */
	R(".NET: Microsoft.Data.SqlClient SQLMessage.Timeout", "Microsoft.Data.SqlClient.SqlException",
	  "Execution Timeout Expired.  The timeout period elapsed prior to completion of the operation or the server "
	  "is not responding.",
	  AMBIGUOUS),

	/* ---- .NET innerFailure chains: the innermost cause decides, the
	 * outer failure only when the cause says nothing known. */
	CHAIN(".NET: HttpRequestException -> IOException -> SocketException (10054)",
	      "System.Net.Http.HttpRequestException", "An error occurred while sending the request.",
	      "System.Net.Sockets.SocketException",
	      "An existing connection was forcibly closed by the remote host.", AMBIGUOUS),
	CHAIN(".NET: connect failure, HttpRequestException -> SocketException (111)",
	      "System.Net.Http.HttpRequestException", "Connection refused (localhost:5001)",
	      "System.Net.Sockets.SocketException", "Connection refused", NOT_SENT),
	/* A cause nothing in the table knows: the outer timeout decides. */
	CHAIN(".NET: HttpClient.Timeout, TaskCanceledException -> ... -> SocketException (125)",
	      "System.Threading.Tasks.TaskCanceledException",
	      "The request was canceled due to the configured HttpClient.Timeout of 100 seconds elapsing.",
	      "System.Net.Sockets.SocketException", "Operation canceled", AMBIGUOUS),
	CHAIN(".NET: TLS, HttpRequestException -> AuthenticationException (SR.net_auth_eof)",
	      "System.Net.Http.HttpRequestException",
	      "The SSL connection could not be established, see inner exception.",
	      "System.Security.Authentication.AuthenticationException",
	      "Authentication failed because the remote party has closed the transport stream.", NOT_SENT),
	/* The outer type reads like a bug; the cause says the connection was
	 * lost after the request went out. The cause wins. */
	CHAIN(".NET: an activity's own InvalidOperationException wrapping a reset",
	      "System.InvalidOperationException", "Charge for order 871 failed",
	      "System.Net.Sockets.SocketException",
	      "An existing connection was forcibly closed by the remote host.", AMBIGUOUS),
	CHAIN(".NET: innermost SocketException with an empty message: the outer text decides",
	      "System.Net.Http.HttpRequestException", "An error occurred while sending the request.",
	      "System.Net.Sockets.SocketException", "", AMBIGUOUS),
	{".NET: non-retriable flag over an ambiguous cause", "System.Net.Http.HttpRequestException",
	 "An error occurred while sending the request.", "System.Net.Sockets.SocketException",
	 "An existing connection was forcibly closed by the remote host.", true, PERMANENT},

	/* ---- Java: java.net, java.net.http, OkHttp, Apache HttpClient,
	 * Retrofit, Spring, JDBC drivers, grpc-java. */
	R("Java: java.net NioSocketImpl read timeout", "java.net.SocketTimeoutException", "Read timed out",
	  AMBIGUOUS),
	R("Java: java.net NioSocketImpl connect timeout (JDK 13+)", "java.net.SocketTimeoutException",
	  "Connect timed out", NOT_SENT),
	R("Java: OkHttp okio AsyncTimeout.newTimeoutException", "java.net.SocketTimeoutException", "timeout",
	  AMBIGUOUS),
	R("Java: OkHttp connect timeout", "java.net.SocketTimeoutException",
	  "failed to connect to psp.example.net/10.0.0.5 (port 443) from /10.0.0.2 (port 51234) after 10000ms",
	  NOT_SENT),
	R("Java: java.net ConnectException ECONNREFUSED", "java.net.ConnectException", "Connection refused",
	  NOT_SENT),
	R("Java: java.net.http HttpClient ConnectException without a message", "java.net.ConnectException", NULL,
	  NOT_SENT),
	R("Java: OkHttp ConnectPlan ConnectException", "java.net.ConnectException",
	  "Failed to connect to psp.example.net/10.0.0.5:443", NOT_SENT),
	R("Java: java.net Inet6AddressImpl.lookupAllHostAddr", "java.net.UnknownHostException",
	  "psp.example.net: Name or service not known", NOT_SENT),
	R("Java: Android libcore (OkHttp on Android) UnknownHostException", "java.net.UnknownHostException",
	  "Unable to resolve host \"psp.example.net\": No address associated with hostname", NOT_SENT),
	R("Java: java.net NioSocketImpl ECONNRESET", "java.net.SocketException", "Connection reset", AMBIGUOUS),
	R("Java: java.net SocketOutputStream EPIPE (JDK 8-12)", "java.net.SocketException",
	  "Broken pipe (Write failed)", AMBIGUOUS),
	R("Java: java.net WSAECONNABORTED (Windows)", "java.net.SocketException",
	  "Software caused connection abort: recv failed", AMBIGUOUS),
	R("Java: OkHttp Http1ExchangeCodec \"unexpected end of stream on\"", "java.io.IOException",
	  "unexpected end of stream on https://psp.example.net/...", AMBIGUOUS),
	R("Java: OkHttp http2 StreamResetException", "okhttp3.internal.http2.StreamResetException",
	  "stream was reset: INTERNAL_ERROR", AMBIGUOUS),
	R("Java: java.net.http HttpTimeoutException (request timeout)", "java.net.http.HttpTimeoutException",
	  "request timed out", AMBIGUOUS),
	R("Java: java.net.http HttpConnectTimeoutException", "java.net.http.HttpConnectTimeoutException",
	  "HTTP connect timed out", NOT_SENT),
	R("Java: java.net.http Http1Response \"header parser received no bytes\"", "java.io.IOException",
	  "HTTP/1.1 header parser received no bytes", AMBIGUOUS),
	R("Java: sun.security.validator PKIX", "javax.net.ssl.SSLHandshakeException",
	  "PKIX path building failed: sun.security.provider.certpath.SunCertPathBuilderException: unable to find "
	  "valid certification path to requested target",
	  NOT_SENT),
	R("Java: JSSE Alert handshake_failure", "javax.net.ssl.SSLHandshakeException",
	  "Received fatal alert: handshake_failure", NOT_SENT),
	R("Java: OkHttp hostname verification", "javax.net.ssl.SSLPeerUnverifiedException",
	  "Hostname psp.example.net not verified:\n    certificate: sha256/AAAA\n    DN: CN=api.example.org\n    "
	  "subjectAltNames: [api.example.org]",
	  NOT_SENT),
	R("Java: Apache HttpClient 4 NoHttpResponseException", "org.apache.http.NoHttpResponseException",
	  "psp.example.net:443 failed to respond", AMBIGUOUS),
	R("Java: Apache HttpClient 4 HttpHostConnectException", "org.apache.http.conn.HttpHostConnectException",
	  "Connect to psp.example.net:443 [psp.example.net/10.0.0.5] failed: Connection refused (Connection refused)",
	  NOT_SENT),
	R("Java: Retrofit HttpException (\"HTTP \" + code + \" \" + message; HTTP/2 has no reason)",
	  "retrofit2.HttpException", "HTTP 503 ", AMBIGUOUS),
	R("Java: Retrofit HttpException", "retrofit2.HttpException", "HTTP 404 Not Found", PERMANENT),
	R("Java: Spring RestTemplate DefaultResponseErrorHandler",
	  "org.springframework.web.client.HttpServerErrorException$ServiceUnavailable",
	  "503 Service Unavailable: [no body]", AMBIGUOUS),
	R("Java: Spring RestTemplate DefaultResponseErrorHandler",
	  "org.springframework.web.client.HttpClientErrorException$NotFound", "404 Not Found: [no body]",
	  PERMANENT),
	R("Java: JDBC PgJDBC QueryExecutorImpl (PSQLState.CONNECTION_FAILURE)",
	  "org.postgresql.util.PSQLException", "An I/O error occurred while sending to the backend.", AMBIGUOUS),
	R("Java: JDBC PgJDBC ConnectionFactoryImpl refused", "org.postgresql.util.PSQLException",
	  "Connection to localhost:5432 refused. Check that the hostname and port are correct and that the "
	  "postmaster is accepting TCP/IP connections.",
	  NOT_SENT),
	R("Java: JDBC PgJDBC ConnectionFactoryImpl", "org.postgresql.util.PSQLException",
	  "The connection attempt failed.", NOT_SENT),
	R("Java: JDBC MySQL Connector/J CommunicationsException",
	  "com.mysql.cj.jdbc.exceptions.CommunicationsException",
	  "Communications link failure\n\nThe last packet successfully received from the server was 10,005 "
	  "milliseconds ago. The last packet sent successfully to the server was 10,006 milliseconds ago.",
	  AMBIGUOUS),
	R("Java: HikariCP HikariPool.createTimeoutException (no connection: no statement sent)",
	  "java.sql.SQLTransientConnectionException",
	  "HikariPool-1 - Connection is not available, request timed out after 30000ms.", NOT_SENT),
	R("Java: grpc-java netty Utils.statusFromThrowable", "io.grpc.StatusRuntimeException",
	  "UNAVAILABLE: io exception", AMBIGUOUS),
	R("Java: grpc-java MessageDeframer.processHeader (inbound limit)", "io.grpc.StatusRuntimeException",
	  "RESOURCE_EXHAUSTED: gRPC message exceeds maximum size 4194304: 5242880", AMBIGUOUS),
	R("Java: grpc-java ClientCallImpl deadline", "io.grpc.StatusRuntimeException",
	  "DEADLINE_EXCEEDED: deadline exceeded after 9.999870000s. [closed=[], open=[[remote_addr=/10.0.0.9:50001]]]",
	  AMBIGUOUS),
	/* The qualifier decides (issue 16): DelayedStream.appendTimeoutInsight
	 * writes buffered_nanos and waiting_for_connection for a call that was
	 * still buffered when its deadline passed, before any transport took
	 * it; older releases print the insight without closed/open. */
	R("Java: grpc-java ClientCallImpl deadline, DelayedStream waiting_for_connection",
	  "io.grpc.StatusRuntimeException",
	  "DEADLINE_EXCEEDED: deadline exceeded after 9.999841200s. [closed=[], open=[[buffered_nanos=10000745100, "
	  "waiting_for_connection]]]",
	  NOT_SENT),
	R("Java: grpc-java before 1.40 DelayedStream insight", "io.grpc.StatusRuntimeException",
	  "DEADLINE_EXCEEDED: deadline exceeded after 19.999724100s. [buffered_nanos=20000452389, "
	  "waiting_for_connection]",
	  NOT_SENT),
	R("Java: grpc-java Status.NOT_FOUND", "io.grpc.StatusRuntimeException", "NOT_FOUND: order 871", PERMANENT),

	/* ---- JavaScript: undici (Node's fetch), Node net/tls/dns, axios. */
	R("JS: undici lib/web/fetch/index.js TypeError('fetch failed', {cause})", "TypeError", "fetch failed",
	  AMBIGUOUS),
	CHAIN("JS: undici fetch failed, cause lib/core/errors.js SocketError 'other side closed' UND_ERR_SOCKET",
	      "TypeError", "fetch failed", "SocketError", "other side closed", AMBIGUOUS),
	R("JS: undici lib/core/errors.js SocketError, rethrown as the activity's error", "SocketError",
	  "other side closed", AMBIGUOUS),
	CHAIN("JS: undici fetch failed, cause Node net ECONNRESET", "TypeError", "fetch failed", "Error",
	      "read ECONNRESET", AMBIGUOUS),
	CHAIN("JS: undici fetch failed, cause Node net connect ECONNREFUSED", "TypeError", "fetch failed", "Error",
	      "connect ECONNREFUSED 127.0.0.1:3500", NOT_SENT),
	CHAIN("JS: undici fetch failed, cause ConnectTimeoutError UND_ERR_CONNECT_TIMEOUT", "TypeError",
	      "fetch failed", "ConnectTimeoutError",
	      "Connect Timeout Error (attempted address: psp.example.net:443, timeout: 10000ms)", NOT_SENT),
	CHAIN("JS: undici fetch failed, cause Node dns getaddrinfo ENOTFOUND", "TypeError", "fetch failed",
	      "Error", "getaddrinfo ENOTFOUND psp.example.net", NOT_SENT),
	R("JS: undici fetch body cut off mid-read, TypeError('terminated')", "TypeError", "terminated", AMBIGUOUS),
	R("JS: undici lib/core/errors.js HeadersTimeoutError", "HeadersTimeoutError", "Headers Timeout Error",
	  AMBIGUOUS),
	R("JS: undici lib/core/errors.js BodyTimeoutError", "BodyTimeoutError", "Body Timeout Error", AMBIGUOUS),
	R("JS: DOMException TimeoutError from AbortSignal.timeout()", "TimeoutError",
	  "The operation was aborted due to timeout", AMBIGUOUS),
	R("JS: DOMException AbortError (fetch aborted by a timer's abort())", "AbortError",
	  "This operation was aborted", AMBIGUOUS),
	R("JS: Node lib/net.js errnoException read ECONNRESET", "Error", "read ECONNRESET", AMBIGUOUS),
	R("JS: Node lib/_http_client.js connResetException", "Error", "socket hang up", AMBIGUOUS),
	R("JS: Node lib/net.js write EPIPE", "Error", "write EPIPE", AMBIGUOUS),
	R("JS: Node lib/net.js read ETIMEDOUT (keepalive on an open connection)", "Error", "read ETIMEDOUT",
	  AMBIGUOUS),
	R("JS: Node lib/net.js exceptionWithHostPort connect ECONNREFUSED", "Error",
	  "connect ECONNREFUSED 127.0.0.1:3500", NOT_SENT),
	/* The connect() syscall timed out: no connection, so no request. */
	R("JS: Node lib/net.js connect ETIMEDOUT", "Error", "connect ETIMEDOUT 10.0.0.5:443", NOT_SENT),
	R("JS: Node lib/dns.js getaddrinfo ENOTFOUND", "Error", "getaddrinfo ENOTFOUND psp.example.net", NOT_SENT),
	R("JS: Node lib/dns.js getaddrinfo EAI_AGAIN", "Error", "getaddrinfo EAI_AGAIN psp.example.net", NOT_SENT),
	R("JS: Node lib/_tls_wrap.js onConnectEnd (code ECONNRESET, before TLS was up)", "Error",
	  "Client network socket disconnected before secure TLS connection was established", NOT_SENT),
	R("JS: Node tls, OpenSSL X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE", "Error",
	  "unable to verify the first certificate", NOT_SENT),
	R("JS: Node tls, OpenSSL X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN", "Error",
	  "self-signed certificate in certificate chain", NOT_SENT),
	R("JS: Node tls, OpenSSL X509_V_ERR_CERT_HAS_EXPIRED", "Error", "certificate has expired", NOT_SENT),
	R("JS: Node lib/tls.js checkServerIdentity ERR_TLS_CERT_ALTNAME_INVALID", "Error",
	  "Hostname/IP does not match certificate's altnames: Host: psp.example.net. is not in the cert's altnames: "
	  "DNS:api.example.org",
	  NOT_SENT),
	R("JS: axios lib/adapters/http.js timeout (code ECONNABORTED)", "AxiosError", "timeout of 5000ms exceeded",
	  AMBIGUOUS),
	R("JS: axios lib/core/settle.js", "AxiosError", "Request failed with status code 503", AMBIGUOUS),
	R("JS: axios lib/core/settle.js", "AxiosError", "Request failed with status code 404", PERMANENT),
	R("JS: axios lib/core/settle.js", "AxiosError", "Request failed with status code 429", NOT_SENT),
	R("JS: axios over Node net", "AxiosError", "connect ECONNREFUSED 127.0.0.1:3500", NOT_SENT),
	R("JS: axios over Node http", "AxiosError", "socket hang up", AMBIGUOUS),
	/* A TypeError is a bug only when its message says so. */
	R("JS: V8 message-template.h kNonObjectPropertyLoadWithProperty", "TypeError",
	  "Cannot read properties of undefined (reading 'timeout')", PERMANENT),
	R("JS: V8 message-template.h kCalledNonCallable", "TypeError", "client.charges.create is not a function",
	  PERMANENT),
	R("JS: Node ERR_INVALID_URL", "TypeError", "Invalid URL", PERMANENT),
	R("JS: undici fetch, an unparsable URL: a TypeError the table does not know", "TypeError",
	  "Failed to parse URL from /v2/charges", UNKNOWN),
	R("policy: a TypeError type alone decides nothing", "TypeError", "", UNKNOWN),
	R("policy: a TypeError type alone decides nothing", "TypeError", NULL, UNKNOWN),

	/* ---- Messages of the fixtures (tests/fixtures). */
	R("fixture: b-retry, requests ConnectionError <- http.client RemoteDisconnected", "ConnectionError",
	  "('Connection aborted.', RemoteDisconnected('Remote end closed connection without response'))",
	  AMBIGUOUS),
	R("fixture: b-retry, requests raise_for_status", "HTTPError",
	  "503 Server Error: Service Unavailable for url: https://psp.example.net/v2/charges", AMBIGUOUS),
	R("fixture: c1, requests ReadTimeout", "ReadTimeout",
	  "HTTPSConnectionPool(host='payouts.bank.example', port=443): Read timed out. (read timeout=10)",
	  AMBIGUOUS),
	R("fixture: Go activity error", "*errors.errorString", "carrier API returned 502 Bad Gateway", AMBIGUOUS),
	R("fixture: h1", "NonRetryableError", "refund window closed for order 871 (closed 2026-08-31)", PERMANENT),
	{"fixture: h2, .NET isNonRetriable", "System.InvalidOperationException",
	 "Applicant 62 has no identity document on file", NULL, NULL, true, PERMANENT},
	R("fixture: workflow failure wrapping a task failure", "TaskFailedError",
	  "refund-871: Activity task #0 failed: refund window closed", UNKNOWN),

	/* ---- Ordering decisions. */
	R("policy: timeout without a message", "TimeoutError", "", AMBIGUOUS),
	R("policy: bare Go text", NULL, "context deadline exceeded", AMBIGUOUS),
	R("policy: gRPC code as the type", "DeadlineExceeded", "rpc error", AMBIGUOUS),
	R("policy: gRPC text", NULL, "rpc error: code = DeadlineExceeded desc = stream terminated", AMBIGUOUS),
	R("policy: 504 text", NULL, "504 Gateway Timeout", AMBIGUOUS),
	R("policy: Go text", NULL, "write: broken pipe", AMBIGUOUS),
	R("policy: OpenSSL 3 text", NULL, "unexpected eof while reading", AMBIGUOUS),
	R("policy: gRPC text", NULL, "rpc error: code = Unavailable desc = transport is closing", AMBIGUOUS),
	R("policy: 500 text", NULL, "500 Internal Server Error", AMBIGUOUS),
	R("policy: .NET text without a reason phrase", "HttpRequestException",
	  "Response status code does not indicate success: 503", AMBIGUOUS),
	R("policy: bare 401", NULL, "401 Unauthorized", PERMANENT),
	R("policy: bare 403", NULL, "403 Forbidden: missing scope", PERMANENT),
	R("policy: not found", NULL, "customer cus_123 not found", PERMANENT),
	R("policy: bare 409", NULL, "409 Conflict", PERMANENT),
	R("policy: bare 422", NULL, "422 Unprocessable Entity", PERMANENT),
	R("policy: validation", "ValidationError", "amount must be positive", PERMANENT),
	R("policy: Python ValueError", "ValueError", "invalid literal for int() with base 10: 'x'", PERMANENT),
	R("policy: .NET ArgumentException", "System.ArgumentException", "Value cannot be empty", PERMANENT),
	R("policy: declined", "CardError", "Your card was declined.", PERMANENT),
	R("policy: insufficient funds", "PaymentError", "insufficient funds", PERMANENT),
	R("policy: gRPC text", NULL, "rpc error: code = InvalidArgument desc = bad sku", PERMANENT),
	R("policy: bare 404", NULL, "HTTP 404", PERMANENT),
	/* A decisive type beats a misleading message. */
	R("policy: decisive type", "ValueError", "timeout must be a positive number", PERMANENT),
	/* The flag always wins. */
	{"policy: the flag wins", "ReadTimeout", "Read timed out", NULL, NULL, true, PERMANENT},
	/* Case-insensitive. */
	R("policy: case", NULL, "SERVICE UNAVAILABLE", AMBIGUOUS),
	R("policy: case", NULL, "BAD REQUEST", PERMANENT),
	/* Numbers only count as words: order ids and amounts are not statuses. */
	R("policy: numbers are words", NULL, "order 15003 rejected by rule engine", UNKNOWN),
	R("policy: numbers are words", NULL, "amount 4040 exceeds daily cap", UNKNOWN),
	R("policy: numbers are words", NULL, "card ending 100541 declined by issuer", PERMANENT),
	R("policy: \"EOF\" must be a word", NULL, "none thereof matched", UNKNOWN),
	/* "terminated" only as the whole text (undici), not inside one. */
	R("policy: \"terminated\" is whole", NULL, "order 871 terminated by operator", UNKNOWN),
	R("policy: \"terminated\" is whole, blanks around it ignored", "TypeError", " terminated\n", AMBIGUOUS),
	/* SQL Server's command timeout is not libpq's connect timeout. */
	R("policy: \"timeout expired\" is whole", NULL, "Timeout expired while running the query", AMBIGUOUS),
	/* Nothing at all. */
	R("policy: nothing", NULL, NULL, UNKNOWN),
	R("policy: nothing", "", "", UNKNOWN),
};

#define N_CASES (sizeof cases / sizeof cases[0])

START_TEST(table)
{
	const struct tcase *c = &cases[_i];
	enum failure_class got =
		classify_failure_chain(c->type, c->message, c->cause_type, c->cause_message, c->non_retriable);
	ck_assert_msg(got == c->want, "case %d (%s): type=%s message=%s cause=%s: %s: got %s, want %s", _i,
		      c->source, c->type ? c->type : "(null)", c->message ? c->message : "(null)",
		      c->cause_type ? c->cause_type : "(null)", c->cause_message ? c->cause_message : "(null)",
		      failure_class_name(got), failure_class_name(c->want));
	/* Without a cause, the chain form is the plain one. */
	if (!c->cause_type && !c->cause_message)
		ck_assert_int_eq(classify_failure(c->type, c->message, c->non_retriable), got);
}
END_TEST

static const char *const languages[] = {"Go:", "Python:", ".NET:", "Java:", "JS:"};

START_TEST(every_language_covers_every_class)
{
	/* Every case names its source, and each SDK language has real texts
	 * for all three verdicts: a class only one language exercises would be
	 * untested for the others' wording. */
	size_t n_real = 0;
	for (size_t i = 0; i < N_CASES; i++)
		ck_assert_msg(cases[i].source && *cases[i].source, "case %zu has no source", i);
	for (size_t l = 0; l < sizeof languages / sizeof languages[0]; l++) {
		size_t per[5] = {0};
		for (size_t i = 0; i < N_CASES; i++) {
			if (strncmp(cases[i].source, languages[l], strlen(languages[l])) == 0)
				per[cases[i].want]++;
		}
		ck_assert_msg(per[FAILURE_AMBIGUOUS] >= 5 && per[FAILURE_PERMANENT] >= 2 && per[FAILURE_SAFE] >= 5,
			      "%s: %zu ambiguous, %zu permanent, %zu safe (not sent)", languages[l],
			      per[FAILURE_AMBIGUOUS], per[FAILURE_PERMANENT], per[FAILURE_SAFE]);
		n_real += per[FAILURE_AMBIGUOUS] + per[FAILURE_PERMANENT] + per[FAILURE_SAFE];
	}
	ck_assert_uint_ge(n_real, 100);
}
END_TEST

/* A real text padded past the window: the qualifier at its head decides,
 * one past the window is not read, and a long text whose head says nothing
 * is still unknown. */
START_TEST(only_the_head_of_a_long_text_is_read)
{
	const char *head = "context deadline exceeded";
	size_t big = (size_t)CLASSIFY_WINDOW * 4;
	char *text = malloc(big + 1);
	ck_assert_ptr_nonnull(text);
	memset(text, 'x', big);
	text[big] = '\0';
	memcpy(text, head, strlen(head));
	ck_assert_int_eq(classify_failure(NULL, text, false), FAILURE_AMBIGUOUS);
	memset(text, 'x', strlen(head));
	memcpy(text + CLASSIFY_WINDOW - strlen(head), head, strlen(head));
	ck_assert_int_eq(classify_failure(NULL, text, false), FAILURE_AMBIGUOUS);
	memset(text + CLASSIFY_WINDOW - strlen(head), 'x', strlen(head));
	memcpy(text + CLASSIFY_WINDOW + 1, head, strlen(head));
	ck_assert_int_eq(classify_failure(NULL, text, false), FAILURE_UNKNOWN);
	free(text);
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(failure_class_name(FAILURE_NONE), "none");
	ck_assert_str_eq(failure_class_name(FAILURE_UNKNOWN), "unknown");
	ck_assert_str_eq(failure_class_name(FAILURE_AMBIGUOUS), "ambiguous");
	ck_assert_str_eq(failure_class_name(FAILURE_PERMANENT), "permanent");
	ck_assert_str_eq(failure_class_name(FAILURE_SAFE), "safe");
}
END_TEST

/* tests/classify/error-texts.json (issue 28): real error texts of the
 * client libraries activities call, each with its library, language, the
 * public source where the text is made or was seen, the class it must get
 * and why. Every row is classified; the table must stay wide enough to mean
 * something (80 rows, 12 libraries, 6 languages, every class), and every
 * library has its section in tests/classify/PROVENANCE.md. */
static json_t *error_texts(void)
{
	json_error_t je;
	json_t *doc = json_load_file(testlib_src("tests/classify/error-texts.json"), 0, &je);
	ck_assert_msg(json_is_array(doc), "tests/classify/error-texts.json: %s (line %d)", je.text, je.line);
	return doc;
}

static enum failure_class class_named(const char *name)
{
	if (strcmp(name, "not-sent") == 0)
		return FAILURE_SAFE;
	if (strcmp(name, "ambiguous") == 0)
		return FAILURE_AMBIGUOUS;
	if (strcmp(name, "refused") == 0)
		return FAILURE_PERMANENT;
	ck_assert_str_eq(name, "unknown");
	return FAILURE_UNKNOWN;
}

static const char *field(json_t *row, const char *key)
{
	return json_string_value(json_object_get(row, key));
}

START_TEST(error_text_table)
{
	json_t *doc = error_texts();
	size_t i, wrong = 0;
	json_t *row;
	char report[3000] = "";
	json_array_foreach(doc, i, row) {
		const char *cls = field(row, "class");
		ck_assert_msg(cls && field(row, "library") && field(row, "language") && field(row, "source") &&
				      field(row, "why") && *field(row, "source") && *field(row, "why"),
			      "row %zu lacks library, language, source, class or why", i);
		enum failure_class want = class_named(cls);
		enum failure_class got = classify_failure_chain(field(row, "type"), field(row, "message"),
								field(row, "cause_type"),
								field(row, "cause_message"), false);
		if (got != want) {
			wrong++;
			size_t used = strlen(report);
			snprintf(report + used, sizeof report - used, "\n  row %zu (%s): got %s, want %s: %.60s",
				 i, field(row, "library"), failure_class_name(got), cls, field(row, "message"));
		}
	}
	ck_assert_msg(wrong == 0, "%zu of %zu error texts classed against their words:%s", wrong,
		      json_array_size(doc), report);
	json_decref(doc);
}
END_TEST

START_TEST(error_text_table_is_wide)
{
	json_t *doc = error_texts();
	json_t *libs = json_object(), *langs = json_object();
	size_t per[5] = {0};
	size_t i;
	json_t *row;
	json_array_foreach(doc, i, row) {
		json_object_set_new(libs, field(row, "library"), json_true());
		json_object_set_new(langs, field(row, "language"), json_true());
		per[class_named(field(row, "class"))]++;
	}
	ck_assert_uint_ge(json_array_size(doc), 80);
	ck_assert_uint_ge(json_object_size(libs), 12);
	ck_assert_uint_ge(json_object_size(langs), 6);
	ck_assert_uint_ge(per[FAILURE_SAFE], 20);
	ck_assert_uint_ge(per[FAILURE_AMBIGUOUS], 20);
	ck_assert_uint_ge(per[FAILURE_PERMANENT], 10);
	/* Each library's section in the provenance file. */
	size_t len;
	char *prov = testlib_read_file(testlib_src("tests/classify/PROVENANCE.md"), &len);
	ck_assert_ptr_nonnull(prov);
	const char *lib;
	json_t *v;
	json_object_foreach(libs, lib, v) {
		char heading[256];
		snprintf(heading, sizeof heading, "\n## %s\n", lib);
		ck_assert_msg(strstr(prov, heading), "PROVENANCE.md has no section \"## %s\"", lib);
	}
	free(prov);
	json_decref(libs);
	json_decref(langs);
	json_decref(doc);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("classify");
	struct testlib_group *tc = testlib_group("classify");
	add_loop_test(tc, table, 0, (int)N_CASES);
	add_test(tc, every_language_covers_every_class);
	add_test(tc, only_the_head_of_a_long_text_is_read);
	add_test(tc, names);
	add_test(tc, error_text_table);
	add_test(tc, error_text_table_is_wide);
	testlib_suite_add(s, tc);
	return testlib_main(s);
}
