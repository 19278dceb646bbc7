package dev.offsetlab.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on 127.0.0.1 between Kafka clients and one broker listener, which can lose the next
 * produce request or the next produce acknowledgement: the model's {@code lose-next-request} and
 * {@code lose-next-ack} faults, on a real broker.
 *
 * <p>The broker advertises this proxy's port for the listener behind it, so a client that
 * bootstraps through the proxy sends everything through it. Kafka's framing is read in both
 * directions (a 4-byte size, then the frame; a request frame starts with its API key, version and
 * correlation id, a response frame with the correlation id). Losing is what a broken connection
 * does, as the model tells it: from the lost frame on, the connection carries nothing more in that
 * direction (requests behind a lost request never arrive; answers behind a lost answer never come
 * back), until the client's request timeout closes it. Only one fault is armed at a time, and it
 * applies to the next produce request on any connection.
 *
 * <p>Bounded: a frame larger than {@link #FRAME_BYTES_MAX} closes its connection; at most {@link
 * #CONNECTIONS_MAX} connections are kept; {@link #close()} closes everything.
 */
final class FaultProxy implements AutoCloseable {
  /** The fault to apply to the next produce request. */
  enum Fault {
    LOSE_NEXT_REQUEST,
    LOSE_NEXT_ACK
  }

  /** Kafka's API key of Produce. */
  private static final short PRODUCE = 0;
  /** Larger than any frame these stories send (a produce request of a few records). */
  private static final int FRAME_BYTES_MAX = 16 * 1024 * 1024;
  private static final int CONNECTIONS_MAX = 64;
  /** A request's API key, API version and correlation id. */
  private static final int REQUEST_HEADER_BYTES = 8;
  /** A response's correlation id. */
  private static final int RESPONSE_HEADER_BYTES = 4;

  private final ServerSocket server;
  private final int upstreamPort;
  private final AtomicReference<Fault> armed = new AtomicReference<>();
  /** How many faults were applied (a story checks its fault happened). */
  private volatile int applied;
  /** Produce requests the clients sent, lost ones included. */
  private final AtomicInteger produceRequests = new AtomicInteger();
  private final List<Socket> sockets = new ArrayList<>();
  private final Thread acceptor;

  FaultProxy(int listenPort, int upstreamPort) throws IOException {
    this.server = new ServerSocket(listenPort, 50, InetAddress.getLoopbackAddress());
    this.upstreamPort = upstreamPort;
    this.acceptor = new Thread(this::accept, "fault-proxy-accept");
    this.acceptor.setDaemon(true);
    this.acceptor.start();
  }

  /** Arms `fault` for the next produce request (replacing one not applied yet). */
  void arm(Fault fault) {
    armed.set(fault);
  }

  /** Whether an armed fault is still waiting for a produce request. */
  boolean pending() {
    return armed.get() != null;
  }

  int applied() {
    return applied;
  }

  /** How many produce requests clients have sent through the proxy, lost ones included. */
  int produceRequests() {
    return produceRequests.get();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket broker;
        try {
          broker = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
        } catch (IOException e) {
          client.close();
          continue;
        }
        client.setTcpNoDelay(true);
        broker.setTcpNoDelay(true);
        synchronized (sockets) {
          sockets.removeIf(Socket::isClosed);
          if (sockets.size() + 2 > CONNECTIONS_MAX) {
            client.close();
            broker.close();
            continue;
          }
          sockets.add(client);
          sockets.add(broker);
        }
        Connection connection = new Connection(client, broker);
        start("fault-proxy-requests", connection::requests);
        start("fault-proxy-responses", connection::responses);
      } catch (IOException e) {
        // The server closed, or one connection failed to open: the client's retry opens another.
      }
    }
  }

  private static void start(String name, Runnable body) {
    Thread t = new Thread(body, name);
    t.setDaemon(true);
    t.start();
  }

  /** One client connection and its broker connection. */
  private final class Connection {
    private final Socket client;
    private final Socket broker;
    /** The correlation id of a produce request whose answer is to be lost, or -1. */
    private volatile int loseAnswerTo = -1;

    Connection(Socket client, Socket broker) {
      this.client = client;
      this.broker = broker;
    }

    /** Client to broker: frames pass until a lost request; nothing passes after it. */
    void requests() {
      boolean lost = false;
      try (DataInputStream in = new DataInputStream(client.getInputStream());
          DataOutputStream out = new DataOutputStream(broker.getOutputStream())) {
        while (true) {
          byte[] frame = frame(in, REQUEST_HEADER_BYTES);
          short apiKey = (short) (((frame[0] & 0xff) << 8) | (frame[1] & 0xff));
          if (apiKey == PRODUCE) produceRequests.incrementAndGet();
          if (lost) continue;
          if (apiKey == PRODUCE) {
            Fault fault = armed.getAndSet(null);
            if (fault == Fault.LOSE_NEXT_REQUEST) {
              lost = true;
              applied++;
              continue;
            }
            if (fault == Fault.LOSE_NEXT_ACK) {
              loseAnswerTo = readInt(frame, 4);
              applied++;
            }
          }
          forward(out, frame);
        }
      } catch (IOException e) {
        // The client closed (its request timed out, or it is done): close both sides.
      } finally {
        closeBoth();
      }
    }

    /** Broker to client: frames pass until the lost answer; nothing passes after it. */
    void responses() {
      boolean lost = false;
      try (DataInputStream in = new DataInputStream(broker.getInputStream());
          DataOutputStream out = new DataOutputStream(client.getOutputStream())) {
        while (true) {
          byte[] frame = frame(in, RESPONSE_HEADER_BYTES);
          if (lost) continue;
          if (loseAnswerTo >= 0 && readInt(frame, 0) == loseAnswerTo) {
            lost = true;
            continue;
          }
          forward(out, frame);
        }
      } catch (IOException e) {
        // The broker or the client closed.
      } finally {
        closeBoth();
      }
    }

    private void closeBoth() {
      try {
        client.close();
      } catch (IOException e) {
        // Closing anyway.
      }
      try {
        broker.close();
      } catch (IOException e) {
        // Closing anyway.
      }
    }
  }

  private static void forward(DataOutputStream out, byte[] frame) throws IOException {
    out.writeInt(frame.length);
    out.write(frame);
    out.flush();
  }

  /** One frame (its size refused beyond the bound, or under its header's bytes). */
  private static byte[] frame(DataInputStream in, int headerBytes) throws IOException {
    int size = in.readInt();
    if (size < headerBytes || size > FRAME_BYTES_MAX) throw new EOFException("a frame of " + size + " bytes");
    byte[] frame = new byte[size];
    in.readFully(frame);
    return frame;
  }

  private static int readInt(byte[] b, int at) {
    return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // Closing anyway.
    }
    synchronized (sockets) {
      for (Socket s : sockets) {
        try {
          s.close();
        } catch (IOException e) {
          // Closing anyway.
        }
      }
      sockets.clear();
    }
  }
}
