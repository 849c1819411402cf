// A Skat bot in Go from the contract alone (proto/skat/v1/skat.proto, stubs made by
// protoc-gen-go and protoc-gen-go-grpc; docs/writing-a-bot.md). It joins with a join
// key (and joins again with it, as a client that lost the answer would: the same seat),
// acts on its snapshot and on every event that gives it a turn, drops its stream once
// and resumes with after_seq, reads one refusal's reason, and prints the standings.
//
//	skatbot SERVER TABLE NAME [JOIN_KEY]
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	pb "github.com/skat-server/skat-server/gen/go/skat/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// reason is the ErrorInfo reason of a refusal ("STALE_SEQ"), or "" (not the server's).
func reason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.Reason
		}
	}
	return ""
}

// waits: reasons that mean the table moved on while we decided (wait for the next event);
// any other refusal of an action is a bug in the bot.
var waits = map[string]bool{"STALE_SEQ": true, "NOT_YOUR_TURN": true, "WRONG_PHASE": true,
	"DEAL_OVER": true, "TABLE_FINISHED": true, "SITTING_OUT": true}

type bot struct {
	c      pb.SkatServiceClient
	table  string
	ctx    context.Context // carries the seat token
	tested bool            // one refusal read on purpose
}

func isTurn(l *pb.LegalActions) bool {
	return l != nil && (len(l.Cards) > 0 || len(l.DiscardFrom) > 0 || len(l.Contracts) > 0 ||
		l.PickUpSkat || l.Hold || l.MinBid > 0 || l.MayPass)
}

// act makes the first legal choice (bid 18 or 20, then pass) with expected_seq = seq.
func (b *bot) act(l *pb.LegalActions, seq uint64) {
	expected := seq
	if !b.tested { // once, on purpose: a wrong expected_seq, refused with STALE_SEQ
		b.tested, expected = true, seq+1000
	}
	var err error
	switch {
	case len(l.Cards) > 0:
		_, err = b.c.PlayCard(b.ctx, &pb.PlayCardRequest{TableId: b.table, Card: l.Cards[0], ExpectedSeq: &expected})
	case len(l.DiscardFrom) >= 2:
		_, err = b.c.Discard(b.ctx, &pb.DiscardRequest{TableId: b.table, Cards: l.DiscardFrom[:2], ExpectedSeq: &expected})
	case len(l.Contracts) > 0:
		k := l.Contracts[0]
		_, err = b.c.Declare(b.ctx, &pb.DeclareRequest{TableId: b.table, Game: k.Game, Announcement: k.Announcement, ExpectedSeq: &expected})
	case l.PickUpSkat:
		_, err = b.c.TakeSkat(b.ctx, &pb.TakeSkatRequest{TableId: b.table, PickUp: true, ExpectedSeq: &expected})
	case l.Hold:
		_, err = b.c.Bid(b.ctx, &pb.BidRequest{TableId: b.table, Call: pb.BidCall_BID_CALL_HOLD, ExpectedSeq: &expected})
	case l.MinBid > 0 && l.MinBid <= 20:
		_, err = b.c.Bid(b.ctx, &pb.BidRequest{TableId: b.table, Call: pb.BidCall_BID_CALL_SAY, Value: l.MinBid, ExpectedSeq: &expected})
	default:
		_, err = b.c.Bid(b.ctx, &pb.BidRequest{TableId: b.table, Call: pb.BidCall_BID_CALL_PASS, ExpectedSeq: &expected})
	}
	if err == nil {
		return
	}
	why := reason(err) // branch on the reason, never on the message
	fmt.Printf("refused: %s (%s)\n", why, status.Code(err))
	if expected != seq && why == "STALE_SEQ" {
		b.act(l, seq) // the deliberate one: now with the right seq
	} else if !waits[why] {
		fmt.Fprintf(os.Stderr, "a bug in the bot: %v\n", err)
		os.Exit(1)
	}
}

// watch reads the stream from after (0: a snapshot first) until the match ends (true) or
// the stream breaks or is dropped on purpose (false), keeping the last seq seen.
func (b *bot) watch(after uint64, last *uint64, dropAfter int) bool {
	ctx, cancel := context.WithCancel(b.ctx)
	defer cancel()
	req := &pb.WatchTableRequest{TableId: b.table}
	if after > 0 {
		req.AfterSeq = &after
	}
	stream, err := b.c.WatchTable(ctx, req)
	if err != nil {
		return false
	}
	for n := 1; ; n++ {
		msg, err := stream.Recv()
		if err != nil {
			return false
		}
		if snap := msg.GetSnapshot(); snap != nil { // act on the snapshot: it may be our turn already
			*last = snap.Seq
			if isTurn(snap.GetDeal().GetLegal()) {
				b.act(snap.Deal.Legal, snap.Seq)
			}
			continue
		}
		ev := msg.GetEvent()
		*last = ev.Seq
		if end := ev.GetMatchEnded(); end != nil {
			for _, s := range end.Standings {
				fmt.Printf("seat %d %-12s seeger-fabian %5d\n", s.Seat, s.Name, s.SeegerFabian)
			}
			return true
		}
		if isTurn(ev.Legal) {
			if ev.DeadlineUnixMs > 0 { // the server's clock on both sides: no skew
				fmt.Printf("turn at seq %d, %d ms to act\n", ev.Seq, ev.DeadlineUnixMs-ev.TimeUnixMs)
			}
			b.act(ev.Legal, ev.Seq)
		}
		if n == dropAfter {
			fmt.Printf("dropping the stream at seq %d\n", ev.Seq)
			return false
		}
	}
}

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: skatbot SERVER TABLE NAME [JOIN_KEY]")
		os.Exit(2)
	}
	server, table, name := os.Args[1], os.Args[2], os.Args[3]
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	joinKey := hex.EncodeToString(key)
	if len(os.Args) > 4 {
		joinKey = os.Args[4]
	}
	conn, err := grpc.Dial(server, grpc.WithInsecure()) // plain text; TLS: grpc.WithTransportCredentials(credentials.NewTLS(...))
	if err != nil {
		panic(err)
	}
	c := pb.NewSkatServiceClient(conn)
	// The second JoinTable is a retry, as after a lost answer: the same seat comes back.
	var seat *pb.JoinTableResponse
	for try := 0; try < 2; try++ {
		seat, err = c.JoinTable(context.Background(), &pb.JoinTableRequest{TableId: table, Name: name, JoinKey: joinKey})
		if err != nil {
			fmt.Fprintf(os.Stderr, "JoinTable: %s %v\n", reason(err), err)
			os.Exit(1)
		}
		fmt.Printf("seat %d (rejoined: %v)\n", seat.Seat, seat.Rejoined)
	}
	b := &bot{c: c, table: table, ctx: metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+seat.Token)}
	var last uint64
	for dropAfter := 5; !b.watch(last, &last, dropAfter); dropAfter = 0 {
		time.Sleep(100 * time.Millisecond)
		fmt.Printf("resuming after seq %d\n", last)
		// The turn may have come with the last event before the drop: act on the view.
		if v, err := c.GetTable(b.ctx, &pb.GetTableRequest{TableId: table}); err == nil && isTurn(v.Table.GetDeal().GetLegal()) {
			b.act(v.Table.Deal.Legal, v.Table.Seq)
		}
	}
}
