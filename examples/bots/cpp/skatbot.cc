// A Skat bot in C++ from the contract alone: stubs made by protoc and grpc_cpp_plugin from
// proto/skat/v1/skat.proto (docs/writing-a-bot.md). It joins with a join key (and joins
// again with it, as a client that lost the answer would: the same seat), acts on its
// snapshot and on every event that gives it a turn, drops its stream once and resumes with
// after_seq, reads one refusal's reason, and prints the standings.
//
//   skatbot SERVER TABLE NAME [JOIN_KEY]
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "skat/v1/skat.grpc.pb.h"

namespace pb = skat::v1;

// The ErrorInfo reason of a refusal ("STALE_SEQ"), or "" (not the server's).
static std::string Reason(const grpc::Status& s) {
  google::rpc::Status status;
  if (!status.ParseFromString(s.error_details())) return "";
  for (const auto& detail : status.details()) {
    google::rpc::ErrorInfo info;
    if (detail.UnpackTo(&info)) return info.reason();
  }
  return "";
}

// Reasons that mean the table moved on while we decided: wait for the next event. Any
// other refusal of an action is a bug in the bot.
static const std::set<std::string> kWaits = {"STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE",
                                             "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT"};

static bool IsTurn(const pb::LegalActions& l) {
  return l.cards_size() > 0 || l.discard_from_size() > 0 || l.contracts_size() > 0 ||
         l.pick_up_skat() || l.hold() || l.min_bid() > 0 || l.may_pass();
}

struct Bot {
  std::unique_ptr<pb::SkatService::Stub> stub;
  std::string table, token;
  bool tested = false;  // one refusal read on purpose

  void Authorize(grpc::ClientContext* ctx) { ctx->AddMetadata("authorization", "Bearer " + token); }

  // The first legal choice (bid 18 or 20, then pass) with expected_seq = seq.
  void Act(const pb::LegalActions& l, uint64_t seq) {
    uint64_t expected = seq;
    if (!tested) tested = true, expected = seq + 1000;  // once, on purpose: refused with STALE_SEQ
    grpc::ClientContext ctx;
    Authorize(&ctx);
    grpc::Status s;
    if (l.cards_size() > 0) {
      pb::PlayCardRequest r; pb::PlayCardResponse a;
      r.set_table_id(table); r.set_card(l.cards(0)); r.set_expected_seq(expected);
      s = stub->PlayCard(&ctx, r, &a);
    } else if (l.discard_from_size() >= 2) {
      pb::DiscardRequest r; pb::DiscardResponse a;
      r.set_table_id(table); r.add_cards(l.discard_from(0)); r.add_cards(l.discard_from(1));
      r.set_expected_seq(expected);
      s = stub->Discard(&ctx, r, &a);
    } else if (l.contracts_size() > 0) {
      pb::DeclareRequest r; pb::DeclareResponse a;
      r.set_table_id(table); r.set_game(l.contracts(0).game());
      r.set_announcement(l.contracts(0).announcement()); r.set_expected_seq(expected);
      s = stub->Declare(&ctx, r, &a);
    } else if (l.pick_up_skat()) {
      pb::TakeSkatRequest r; pb::TakeSkatResponse a;
      r.set_table_id(table); r.set_pick_up(true); r.set_expected_seq(expected);
      s = stub->TakeSkat(&ctx, r, &a);
    } else {
      pb::BidRequest r; pb::BidResponse a;
      r.set_table_id(table); r.set_expected_seq(expected);
      if (l.hold()) r.set_call(pb::BID_CALL_HOLD);
      else if (l.min_bid() > 0 && l.min_bid() <= 20) r.set_call(pb::BID_CALL_SAY), r.set_value(l.min_bid());
      else r.set_call(pb::BID_CALL_PASS);
      s = stub->Bid(&ctx, r, &a);
    }
    if (s.ok()) return;
    std::string why = Reason(s);  // branch on the reason, never on the message
    std::printf("refused: %s (%d)\n", why.c_str(), s.error_code());
    if (expected != seq && why == "STALE_SEQ") return Act(l, seq);  // now with the right seq
    if (!kWaits.count(why)) std::fprintf(stderr, "a bug in the bot: %s\n", s.error_message().c_str()), std::exit(1);
  }

  // Reads the stream from `after` (0: a snapshot first) until the match ends (true) or
  // the stream breaks or is dropped on purpose (false), keeping the last seq seen.
  bool Watch(uint64_t after, uint64_t* last, int drop_after) {
    grpc::ClientContext ctx;
    Authorize(&ctx);
    pb::WatchTableRequest req;
    req.set_table_id(table);
    if (after > 0) req.set_after_seq(after);
    auto reader = stub->WatchTable(&ctx, req);
    pb::WatchTableResponse msg;
    for (int n = 1; reader->Read(&msg); n++) {
      if (msg.has_snapshot()) {  // act on it: it may be our turn already
        *last = msg.snapshot().seq();
        if (msg.snapshot().has_deal() && IsTurn(msg.snapshot().deal().legal())) Act(msg.snapshot().deal().legal(), *last);
        continue;
      }
      const pb::Event& ev = msg.event();
      *last = ev.seq();
      if (ev.has_match_ended()) {
        for (const auto& s : ev.match_ended().standings())
          std::printf("seat %u %-12s seeger-fabian %5d\n", s.seat(), s.name().c_str(), s.seeger_fabian());
        return true;
      }
      if (ev.has_legal() && IsTurn(ev.legal())) {
        if (ev.deadline_unix_ms() > 0)  // the server's clock on both sides: no skew
          std::printf("turn at seq %lu, %lu ms to act\n", ev.seq(), ev.deadline_unix_ms() - ev.time_unix_ms());
        Act(ev.legal(), ev.seq());
      }
      if (n == drop_after) {
        std::printf("dropping the stream at seq %lu\n", ev.seq());
        ctx.TryCancel();
        reader->Finish();
        return false;
      }
    }
    reader->Finish();
    return false;
  }
};

int main(int argc, char** argv) {
  if (argc < 4) return std::fprintf(stderr, "usage: skatbot SERVER TABLE NAME [JOIN_KEY]\n"), 2;
  std::string key = argc > 4 ? argv[4] : std::to_string(std::random_device{}()) + "-" + std::to_string(std::random_device{}()) + "-skatbot";
  Bot bot;
  bot.table = argv[2];
  bot.stub = pb::SkatService::NewStub(grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials()));
  for (int attempt = 0; attempt < 2; attempt++) {  // the second is a retry, as after a lost answer: the same seat
    grpc::ClientContext ctx;
    pb::JoinTableRequest r; pb::JoinTableResponse a;
    r.set_table_id(argv[2]); r.set_name(argv[3]); r.set_join_key(key);
    grpc::Status s = bot.stub->JoinTable(&ctx, r, &a);
    if (!s.ok()) return std::fprintf(stderr, "JoinTable: %s %s\n", Reason(s).c_str(), s.error_message().c_str()), 1;
    std::printf("seat %u (rejoined: %s)\n", a.seat(), a.rejoined() ? "true" : "false");
    bot.token = a.token();
  }
  uint64_t last = 0;
  for (int drop_after = 5; !bot.Watch(last, &last, drop_after); drop_after = 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::printf("resuming after seq %lu\n", last);
    grpc::ClientContext ctx;  // the turn may have come with the last event before the drop
    bot.Authorize(&ctx);
    pb::GetTableRequest r; pb::GetTableResponse v;
    r.set_table_id(bot.table);
    if (bot.stub->GetTable(&ctx, r, &v).ok() && v.table().has_deal() && IsTurn(v.table().deal().legal()))
      bot.Act(v.table().deal().legal(), v.table().seq());
  }
}
