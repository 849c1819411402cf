// A Skat bot in Java from the contract alone: stubs made by protoc and grpc-java's plugin
// from proto/skat/v1/skat.proto (docs/writing-a-bot.md). It joins with a join key (and
// joins again with it, as a client that lost the answer would: the same seat), acts on its
// snapshot and on every event that gives it a turn, drops its stream once and resumes with
// after_seq, reads one refusal's reason, and prints the standings.
//
//   java SkatBot SERVER TABLE NAME [JOIN_KEY]
import com.google.rpc.ErrorInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import java.util.Iterator;
import java.util.Set;
import java.util.UUID;
import skat.v1.Skat.*;
import skat.v1.SkatServiceGrpc;
import skat.v1.SkatServiceGrpc.SkatServiceBlockingStub;

public final class SkatBot {
  // Reasons that mean the table moved on while we decided: wait for the next event. Any
  // other refusal of an action is a bug in the bot.
  static final Set<String> WAITS =
      Set.of("STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT");

  final SkatServiceBlockingStub stub;
  final String table;
  boolean tested; // one refusal read on purpose

  SkatBot(SkatServiceBlockingStub stub, String table) {
    this.stub = stub;
    this.table = table;
  }

  /** The ErrorInfo reason of a refusal ("STALE_SEQ"), or "" (not the server's). */
  static String reason(StatusRuntimeException e) {
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    if (status == null) return "";
    for (com.google.protobuf.Any detail : status.getDetailsList()) {
      try {
        if (detail.is(ErrorInfo.class)) return detail.unpack(ErrorInfo.class).getReason();
      } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
      }
    }
    return "";
  }

  static boolean isTurn(LegalActions l) {
    return l.getCardsCount() > 0 || l.getDiscardFromCount() > 0 || l.getContractsCount() > 0
        || l.getPickUpSkat() || l.getHold() || l.getMinBid() > 0 || l.getMayPass();
  }

  /** The first legal choice (bid 18 or 20, then pass) with expected_seq = seq. */
  void act(LegalActions l, long seq) {
    long expected = seq;
    if (!tested) { // once, on purpose: a wrong expected_seq, refused with STALE_SEQ
      tested = true;
      expected = seq + 1000;
    }
    try {
      if (l.getCardsCount() > 0) {
        stub.playCard(PlayCardRequest.newBuilder().setTableId(table).setCard(l.getCards(0)).setExpectedSeq(expected).build());
      } else if (l.getDiscardFromCount() >= 2) {
        stub.discard(DiscardRequest.newBuilder().setTableId(table).addCards(l.getDiscardFrom(0))
            .addCards(l.getDiscardFrom(1)).setExpectedSeq(expected).build());
      } else if (l.getContractsCount() > 0) {
        Contract k = l.getContracts(0);
        stub.declare(DeclareRequest.newBuilder().setTableId(table).setGame(k.getGame())
            .setAnnouncement(k.getAnnouncement()).setExpectedSeq(expected).build());
      } else if (l.getPickUpSkat()) {
        stub.takeSkat(TakeSkatRequest.newBuilder().setTableId(table).setPickUp(true).setExpectedSeq(expected).build());
      } else {
        BidRequest.Builder b = BidRequest.newBuilder().setTableId(table).setExpectedSeq(expected);
        if (l.getHold()) b.setCall(BidCall.BID_CALL_HOLD);
        else if (l.getMinBid() > 0 && l.getMinBid() <= 20) b.setCall(BidCall.BID_CALL_SAY).setValue(l.getMinBid());
        else b.setCall(BidCall.BID_CALL_PASS);
        stub.bid(b.build());
      }
    } catch (StatusRuntimeException e) {
      String why = reason(e); // branch on the reason, never on the message
      System.out.printf("refused: %s (%s)%n", why, e.getStatus().getCode());
      if (expected != seq && why.equals("STALE_SEQ")) act(l, seq); // now with the right seq
      else if (!WAITS.contains(why)) throw new IllegalStateException("a bug in the bot", e);
    }
  }

  /** Reads the stream from `after` (0: a snapshot first); the match ended (true) or not. */
  boolean watch(long after, long[] last, int dropAfter) {
    WatchTableRequest.Builder req = WatchTableRequest.newBuilder().setTableId(table);
    if (after > 0) req.setAfterSeq(after);
    io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
    io.grpc.Context previous = ctx.attach();
    try {
      Iterator<WatchTableResponse> stream = stub.watchTable(req.build());
      for (int n = 1; stream.hasNext(); n++) {
        WatchTableResponse msg = stream.next();
        if (msg.hasSnapshot()) { // act on it: it may be our turn already
          last[0] = msg.getSnapshot().getSeq();
          if (msg.getSnapshot().hasDeal() && isTurn(msg.getSnapshot().getDeal().getLegal()))
            act(msg.getSnapshot().getDeal().getLegal(), last[0]);
          continue;
        }
        Event ev = msg.getEvent();
        last[0] = ev.getSeq();
        if (ev.hasMatchEnded()) {
          for (Standing s : ev.getMatchEnded().getStandingsList())
            System.out.printf("seat %d %-12s seeger-fabian %5d%n", s.getSeat(), s.getName(), s.getSeegerFabian());
          return true;
        }
        if (ev.hasLegal() && isTurn(ev.getLegal())) {
          if (ev.getDeadlineUnixMs() > 0) // the server's clock on both sides: no skew
            System.out.printf("turn at seq %d, %d ms to act%n", ev.getSeq(), ev.getDeadlineUnixMs() - ev.getTimeUnixMs());
          act(ev.getLegal(), ev.getSeq());
        }
        if (n == dropAfter) {
          System.out.printf("dropping the stream at seq %d%n", ev.getSeq());
          return false;
        }
      }
    } catch (StatusRuntimeException broken) {
      // a broken stream: resume
    } finally {
      ctx.detach(previous);
      ctx.cancel(null);
    }
    return false;
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length < 3) throw new IllegalArgumentException("usage: SkatBot SERVER TABLE NAME [JOIN_KEY]");
    String key = args.length > 3 ? args[3] : UUID.randomUUID().toString();
    ManagedChannel channel = ManagedChannelBuilder.forTarget(args[0]).usePlaintext().build(); // TLS: useTransportSecurity()
    SkatServiceBlockingStub open = SkatServiceGrpc.newBlockingStub(channel);
    JoinTableResponse seat = null;
    for (int attempt = 0; attempt < 2; attempt++) { // the second is a retry, as after a lost answer: the same seat
      seat = open.joinTable(JoinTableRequest.newBuilder().setTableId(args[1]).setName(args[2]).setJoinKey(key).build());
      System.out.printf("seat %d (rejoined: %s)%n", seat.getSeat(), seat.getRejoined());
    }
    Metadata auth = new Metadata();
    auth.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + seat.getToken());
    SkatBot bot = new SkatBot(open.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(auth)), args[1]);
    long[] last = {0};
    for (int dropAfter = 5; !bot.watch(last[0], last, dropAfter); dropAfter = 0) {
      Thread.sleep(100);
      System.out.printf("resuming after seq %d%n", last[0]);
      TableView v = bot.stub.getTable(GetTableRequest.newBuilder().setTableId(args[1]).build()).getTable();
      if (v.hasDeal() && isTurn(v.getDeal().getLegal())) bot.act(v.getDeal().getLegal(), v.getSeq()); // a turn from before the drop
    }
    channel.shutdownNow();
  }
}
