// The page's words in English and German: one catalogue per language, keyed by message
// id, `{name}` placeholders filled by `t`. German is chosen when the browser prefers it
// (or the reader picked it with the switch, kept in local storage); plurals and numbers
// come from the platform's `Intl`. TypeScript checks that German has every English id.

const en = {
  "nav.tables": "Tables", "nav.play": "Play", "nav.tv": "TV", "nav.tournaments": "Tournaments", "nav.leaderboard": "Leaderboard", "nav.myBot": "My bot", "nav.operator": "Operator",
  "footer": "Everything here comes from the same skat.v1 API the bots use, as a spectator (or, at your own seat, as that seat) sees it: no card is shown before the rules reveal it.",
  "lang.label": "Language",
  "error.title": "Something went wrong", "notfound": "Not found", "notfound.back": "All tables",
  // the tables list
  "tables.title": "Tables", "tables.filter": "Filter", "filter.all": "all", "filter.live": "live", "filter.finished": "finished",
  "col.table": "table", "col.status": "status", "col.seats": "seats", "col.deals": "deals", "col.players": "players and Seeger-Fabian",
  "tables.replay": "replay", "tables.none": "No tables yet.", "tables.newest": "Showing the newest 100.",
  "status.waiting": "waiting", "status.playing": "playing", "status.finished": "finished", "status.abandoned": "abandoned",
  // one table
  "table.connecting": "Connecting…", "table.deal": "deal {n} of {total}", "table.replayLast": "replay the last deal",
  "seat.open": "open seat {n}", "seat.toMove": " ▸ to move", "seat.dealer": "dealer", "seat.dealerLong": "dealt this deal", "seat.sitsOut": "sits out", "seat.cards": "{n} {cards}",
  "seat.points": "{plain} points · SF {sf}", "seat.dealClock": "deal clock {s} s", "seat.toAct": "to act: ",
  "forehand": "forehand", "middlehand": "middlehand", "rearhand": "rearhand",
  "table.bidding": "Bidding: ", "table.notStarted": "not started", "table.game": "Game: ", "table.plays": "{who} plays {game} at {bid}",
  "table.highest": "Highest bid {bid}", "table.skat": "Skat: ", "table.skatPicked": "Skat (picked up): ", "table.putAway": "Put away: ",
  "table.openHand": "Open hand: ", "table.trick": "Trick: ", "table.taken": "Tricks taken: ",
  "table.points": "Card points: ", "table.pointsLine": "{who} {mine} · defenders {theirs} (61 wins; the skat counts for the declarer at the end)",
  "table.tricksPlayed": "Tricks played ({n})", "table.dealsTitle": "Deals", "col.deal": "deal", "col.game": "game", "col.score": "score",
  "final.title": "Final standings", "final.again": "Play again against the same opponents",
  "table.passedIn": "passed in", "table.won": "won", "table.lost": "lost",
  "table.asDealt": "Deal {n} as dealt ", "table.replayIt": "(replay it)", "table.tv": "TV: following a table being played",
  "table.tookIt": "{who} took it", "table.lastTrick": "last trick (L)", "table.skatHidden": "the skat, face down",
  "table.animateOn": "motion: on", "table.animateOff": "motion: off", "table.soundOn": "sound: on", "table.soundOff": "sound: off",
  "sheet.title": "Deal {n}: the result", "sheet.won": "{who} won {game} (bid {bid}).", "sheet.lost": "{who} lost {game} (bid {bid}).",
  "sheet.overbid": "Overbid: the game was worth less than the bid.",
  "sheet.value": "Value {value} = {base} × {mult} ({levels}); score {score}.",
  "level.game": "game", "level.hand": "hand", "level.schneider": "schneider", "level.schneiderAnnounced": "schneider announced",
  "level.schwarz": "schwarz", "level.schwarzAnnounced": "schwarz announced", "level.ouvert": "open", "level.each": "game and each level",
  "sheet.valueNull": "Value {value}; score {score}.", "sheet.with": "with", "sheet.without": "without",
  "sheet.points": "Card points: {who} {mine} (with the skat, {tricks} tricks) · defenders {theirs}.",
  "sheet.pointsServer": "Card points: {who} {mine} (with the skat) · defenders {theirs}.",
  "sheet.list": "The list (Seeger-Fabian points, not card points)", "sheet.player": "player", "sheet.thisDeal": "this deal", "sheet.total": "total",
  "sheet.continue": "on to the table", "sheet.putAway": "Put away:", "sheet.skatHand": "The skat (a hand game):", "sheet.lastTrick": "Last trick:",
  "sheet.grace": "No clock runs in the first {s} s after a deal: read on, then go on to the table.",
  "tv.idle": "Nothing is being played now; looking again every 5 seconds.", "table.animate": "animate cards",
  "call.say": "say", "call.hold": "hold", "call.pass": "pass",
  // a person's seat
  "me.hand": "Your hand, {name}", "me.turn": "Your turn.", "me.turnCard": "Your turn: play a card.",
  "me.turnDiscard": "Your turn: choose two cards to put away.", "me.waiting": "Waiting for the others.",
  "me.play": "play {card}", "me.putAway": "put away {card}", "me.say": "say {value}", "me.hold": "hold", "me.pass": "pass",
  "me.pickUp": "pick up the skat", "me.playHand": "play hand", "me.discard": "put the two chosen cards away",
  "me.declare": "declare {game}", "me.claim": "claim the rest", "me.resign": "resign", "me.seat": "Your seat", "me.decision": "Your decision",
  "me.declareValue": "declare {game} · {value}", "me.declareOver": "declare {game} · {value}: overbid",
  "me.contractsHelp": "The value is what the game is worth at least if won as declared, from the cards you know; below your bid of {bid} it is an overbid and lost. Hand: without the skat, one level more. Schneider or schwarz announced: you promise 90 card points or every trick. Ouvert: your cards lie open.",
  "me.claimSure": "claim the rest? press again", "me.resignSure": "resign? press again",
  "me.bidValue": "any bid:", "me.sayChosen": "say it",
  // playing against bots
  "play.title": "Play a list against bots", "play.name": "Your name", "play.opponent": "Opponent {n}", "play.openSeat": "an open seat for another person",
  "play.level": "level {n}: {s}",
  "play.deals": "Deals", "play.seconds": "Seconds per decision", "play.start": "Sit down",
  "play.insecure": "This page is not on HTTPS: a seat's token would travel in plain text, so you cannot sit down here. The operator serves the page with --tls-cert (docs/deploy.md).",
  "play.seats": "Seats", "play.four": "4 (the dealer sits out; opponent 3 plays too)",
  "play.intro": "Choose your opponents: the server's house bots, or an open seat another person can take from the table list.",
  "play.noHouse": "No house bot is online on this server: leave seats open for other people (or for bots you start yourself).",
  "play.watchOnly": "This server lets visitors watch, not sit down: people play here at tables the operator opens. If the operator gave you a seat link, open it; if you have a table id and a seat token, enter them here.",
  "play.tableId": "Table id", "play.seatToken": "Seat token", "play.takeSeat": "Take the seat", "play.notYourSeat": "That token holds no seat at this table.",
  "play.against": "{name} against {who}", "play.people": "people", "play.and": " and ",
  // replays
  "replay.title": "Replay deal {n}", "replay.heading": "Deal {n} of ", "replay.notEnded": "Deal {n} of this table has not ended.",
  "replay.toTable": "to the table", "replay.start": "« start", "replay.back": "◀ back", "replay.forward": "forward ▶", "replay.end": "end »",
  "replay.step": "move {n} of {total}", "replay.prev": "previous deal", "replay.next": "next deal", "replay.putAway": " put away: ",
  "replay.trick": "Trick", "replay.hands": "Hands ({n} {tricks} played)", "replay.moves": "Moves",
  "replay.says": "{who} says {value}", "replay.holds": "{who} holds", "replay.passes": "{who} passes", "replay.picksUp": "{who} picks up the skat",
  "replay.playsHand": "{who} plays hand", "replay.discards": "{who} puts away {cards}", "replay.declares": "{who} declares {game}",
  "replay.playsCard": "{who} plays the {card}", "replay.passedIn": "Passed in: nobody played a game.",
  "replay.penalty": "No game: a seat forfeited before the declaration.", "replay.result": "{who} {outcome} with {points} card points; game value {value}.",
  // tournaments, ratings, bots
  "tournaments.title": "Tournaments", "tournaments.hideCasual": "hide casual meetings", "tournaments.showCasual": "show casual meetings",
  "col.tournament": "tournament", "col.format": "format", "col.start": "start", "col.played": "played", "col.entrants": "entrants",
  "tournaments.none": "No tournaments yet.", "tournament.standings": "Standings", "tournament.h2h": "Head-to-head", "tournament.tables": "Tables",
  "col.rank": "#", "col.entrant": "entrant", "col.lists": "lists", "col.sfTotal": "SF total", "col.sfMean": "SF mean", "col.ci": "±95%",
  "col.wonDeclared": "won/declared", "col.penalties": "penalties", "col.round": "round", "col.meeting": "meeting", "col.seating": "seating",
  "tournament.status": "{format} · {seats} seats{round} · {status} · starts {start} · {played}/{all} tables played{abandoned}",
  "tournament.round": " · round {n} of {total}", "tournament.abandoned": ", {n} abandoned",
  "deals.title": "Deals", "deals.committed": "Committed at creation: ", "deals.later": " (the secret is revealed when the tournament is over)",
  "deals.verify": "verify the deals", "deals.checking": "checking…",
  "leaderboard.title": "Leaderboard", "leaderboard.about": "Weng-Lin ratings after every rated list, ranked by rating − 3 × uncertainty.",
  "col.bot": "bot", "col.rating": "rating", "col.pm": "±", "leaderboard.none": "Nobody is rated yet.",
  "leaderboard.ladder": "The house bots (house-…) are the ladder of built-in strengths, from level 1 ({first}) to level {n} ({last}): where a bot stands among them says how strong it is.",
  "col.level": "level", "level.badge": "level {n} · {s}", "level.about": "of the ladder of built-in strengths: a house bot of this server, accepting every challenge.",
  "bot.online": "online", "bot.offline": "offline", "bot.disabled": "disabled",
  "bot.rated": "rating {r} ± {u} after {n} lists", "bot.unrated": "not rated yet", "bot.tables": "plays at most {n} tables at once",
  "bot.history": "Rating over time", "bot.recent": "Recent lists", "col.seatingSf": "seating and Seeger-Fabian", "bot.noLists": "No finished lists yet.",
  "chart.none": "No rated lists yet.",
  "format.round_robin": "round robin", "format.swiss": "Swiss", "format.casual": "casual", "format.challenge": "challenge",
  "tstatus.scheduled": "scheduled", "tstatus.running": "running", "tstatus.paused": "paused", "tstatus.finished": "finished", "tstatus.cancelled": "cancelled",
  "dealt.skat": "skat",
  // analysis and the deals' check
  "an.title": "Analysis", "an.queued": "analysis queued ({n} tables ahead)…", "an.running": "analysis running…", "an.none": "no analysis: {why}",
  "an.noPlay": "No card play to judge in this deal.",
  "an.about": "{who} declared {game}. The line: the declarer's {what} with every hand open, after each card; dots: the same expected on what the player to move knew ({worlds} worlds), red where it was a mistake. Marks: ?? blunder, ? mistake (on what the player knew), ◆ changed the result with cards open only.",
  "an.points": "card points", "an.result": "result (1 won)", "an.accuracy": "Accuracy over this table",
  "an.player": "player", "an.as": "as", "an.judged": "cards judged", "an.lossOpen": "mean loss, cards open", "an.lossKnown": "mean loss, on what it knew",
  "an.mistakes": "mistakes", "an.blunders": "blunders", "an.flipped": "results flipped", "an.declarer": "declarer", "an.defender": "defender",
  "an.open": "With all cards open: {value} after it, {best} after {card}.",
  "an.knew": " On what the player knew ({worlds} worlds): {mean} expected after it, {bestMean} after {card}; loss {loss} (95% {lo} to {hi}).",
  "an.curve": "The declarer's {what} with all cards open, before the first card and after each",
  "an.game": "Bidding and game", "an.option": "{game} (worth {value}, won {chance}%, expected {expected} SF)",
  "an.overbid": "{who} bid {bid}: overbid, the cards were worth bidding to {worth} by simulation (0: pass).",
  "an.gameWorse": "Declared {made}; {best} was better by {loss} SF (95% {lo} to {hi}).",
  "an.gameFine": "Declared {made}: no option reaching the bid was better, by simulation.",
  "verify.ok": "verified: the {deals} deals of {tables} tables came from the secret committed at creation ({commitment}…)",
  "verify.mismatch": "the revealed secret does not match the commitment {commitment}", "verify.insecure": "this page is not a secure context (https or this machine): use skat tournament verify",
  "verify.noSeed": "table {table}: a record without its seed", "verify.badSeed": "table {table}: seed {seed} does not come from the secret",
  "verify.old": "made before deals were committed: nothing to verify",
  // the operator's page
  "op.title": "Operator", "op.token": "Admin token", "op.signIn": "Sign in", "op.signOut": "Sign out", "op.tryAgain": "Try again",
  "op.kept": "The token is kept in this tab's session storage only, and sent only over HTTPS or to this machine.",
  "op.whichToken": "The admin token is the one the server was started with: skat serve --admin-token, or SKAT_ADMIN_TOKEN in its environment.",
  "op.insecure": "This page is not on HTTPS: the admin token would travel in plain text, so it is not sent. Serve the page with --tls-cert (docs/deploy.md).",
  "op.refused": "The server refused the token: {why}. Give the admin token the server was started with (skat serve --admin-token, or SKAT_ADMIN_TOKEN in its environment).",
  "op.online": "Online now", "op.tournaments": "Tournaments", "op.accounts": "Accounts", "op.audit": "Audit log",
  "op.nobodyOnline": "No bot is connected to this replica.", "op.nothingYet": "Nothing yet.",
  "op.owner": "owner", "op.lobbies": "lobbies", "op.tablesNow": "tables", "op.state": "state", "op.quota": "quota",
  "op.lastSeen": "last seen", "op.created": "created", "op.former": "former names", "op.never": "never", "op.removed": "removed",
  "op.when": "when", "op.from": "from", "op.action": "action", "op.target": "target", "op.detail": "detail", "op.copy": "copy",
  "op.newName": "new account", "op.register": "Register", "op.registered": "Account {name} registered. Its bot token:",
  "op.rotated": "{name} has a new bot token (the old one no longer works):",
  "op.tokenOnce": "Shown once: hand it to the bot's owner, who keeps it in a file or in SKAT_BOT_TOKEN (never on a command line).",
  "op.rename": "rename", "op.renameTo": "New name for {name}:", "op.enable": "enable", "op.disable": "disable", "op.remove": "remove",
  "op.removeAsk": "Remove {name}? It is disabled and hidden from the public; its results stay, and enable brings it back.",
  "op.rotate": "new token", "op.rotateAsk": "Give {name} a new bot token? The old one stops working and its lobbies end.",
  "op.setQuota": "quota", "op.quotaTo": "Tables {name} may play at once (1 to 1000):", "op.setOwner": "owner", "op.ownerTo": "Owner contact of {name}:",
  "op.pause": "pause", "op.resume": "resume", "op.cancel": "cancel", "op.cancelAsk": "Cancel {name}? Its unfinished tables are abandoned.",
  // the author's page of a hosted bot
  "mine.title": "My bot", "mine.token": "Bot token",
  "mine.kept": "For a hosted bot's author: its versions, its sandboxes and their output. The token is kept in this tab's session storage only, and sent only over HTTPS or to this machine.",
  "mine.whichToken": "Your bot's token: the one the operator gave you (skat admin register-bot), which your bot uses with --bot-token or SKAT_BOT_TOKEN.",
  "mine.insecure": "This page is not on HTTPS: the bot token would travel in plain text, so it is not sent. Ask the operator to serve the page with --tls-cert.",
  "mine.refused": "The server refused the token: {why}. Give your bot's token (the one it plays with, --bot-token or SKAT_BOT_TOKEN).",
  "mine.versions": "Versions", "mine.sandboxes": "Sandboxes (newest first)",
  "mine.noVersions": "No version submitted yet: skat bot submit --bot-token T --archive bot.tar (docs/hosted-bots.md).",
  "mine.noSandboxes": "No sandbox yet: your bot has not been seated as a hosted bot.",
  "mine.digest": "digest", "mine.submitted": "submitted", "mine.active": "active", "mine.image": "image",
  "mine.archive": "archive, {mib} MiB", "mine.pending": "waiting for approval", "mine.approved": "may play", "mine.failed": "failed",
  "mine.started": "started", "mine.table": "table", "mine.seat": "seat {n}", "mine.exit": "exit status",
  "mine.cpu": "CPU s", "mine.memory": "peak MiB", "mine.output": "output ({kib} KiB)", "mine.outputOf": "Output of sandbox {id}",
  "mine.cut": "Older output was dropped: the last 1 MiB is kept.", "mine.silent": "(no output)",
  "mine.running": "running", "mine.exited": "exited", "mine.stopped": "stopped after its table",
  "mine.oom": "out of memory", "mine.timedOut": "wall-clock limit", "mine.failedToStart": "did not start",
  // cards and games
  "card": "{rank} of {suit}", "suit.0": "diamonds", "suit.1": "hearts", "suit.2": "spades", "suit.3": "clubs",
  "rank.0": "seven", "rank.1": "eight", "rank.2": "nine", "rank.3": "queen", "rank.4": "king", "rank.5": "ten", "rank.6": "ace", "rank.7": "jack",
  "game.diamonds": "diamonds", "game.hearts": "hearts", "game.spades": "spades", "game.clubs": "clubs", "game.grand": "grand", "game.null": "null",
  "game.hand": "hand", "ann.schneider": "schneider announced", "ann.schwarz": "schwarz announced", "ann.ouvert": "ouvert",
  "one.card": "card", "many.cards": "cards", "one.trick": "trick", "many.tricks": "tricks",
};

type Id = keyof typeof en;

const de: Record<Id, string> = {
  "nav.tables": "Tische", "nav.play": "Spielen", "nav.tv": "TV", "nav.tournaments": "Turniere", "nav.leaderboard": "Rangliste", "nav.myBot": "Mein Bot", "nav.operator": "Betreiber",
  "footer": "Alles hier kommt aus derselben skat.v1-Schnittstelle, die die Bots benutzen, so wie ein Zuschauer (oder, am eigenen Platz, dieser Platz) es sieht: keine Karte wird gezeigt, bevor die Regeln sie aufdecken.",
  "lang.label": "Sprache",
  "error.title": "Etwas ist schiefgegangen", "notfound": "Nicht gefunden", "notfound.back": "Alle Tische",
  "tables.title": "Tische", "tables.filter": "Auswahl", "filter.all": "alle", "filter.live": "laufend", "filter.finished": "beendet",
  "col.table": "Tisch", "col.status": "Stand", "col.seats": "Plätze", "col.deals": "Spiele", "col.players": "Spieler und Seeger-Fabian",
  "tables.replay": "nachspielen", "tables.none": "Noch keine Tische.", "tables.newest": "Die neuesten 100.",
  "status.waiting": "wartet", "status.playing": "läuft", "status.finished": "beendet", "status.abandoned": "abgebrochen",
  "table.connecting": "Verbinde…", "table.deal": "Spiel {n} von {total}", "table.replayLast": "letztes Spiel nachspielen",
  "seat.open": "freier Platz {n}", "seat.toMove": " ▸ am Zug", "seat.dealer": "Geber", "seat.dealerLong": "hat diese Runde gegeben", "seat.sitsOut": "setzt aus", "seat.cards": "{n} {cards}",
  "seat.points": "{plain} Punkte · SF {sf}", "seat.dealClock": "Spieluhr {s} s", "seat.toAct": "Zeit: ",
  "forehand": "Vorhand", "middlehand": "Mittelhand", "rearhand": "Hinterhand",
  "table.bidding": "Reizen: ", "table.notStarted": "noch nicht begonnen", "table.game": "Spiel: ", "table.plays": "{who} spielt {game} bei {bid}",
  "table.highest": "Höchstes Gebot {bid}", "table.skat": "Skat: ", "table.skatPicked": "Skat (aufgenommen): ", "table.putAway": "Gedrückt: ",
  "table.openHand": "Offene Hand: ", "table.trick": "Stich: ", "table.taken": "Stiche: ",
  "table.points": "Augen: ", "table.pointsLine": "{who} {mine} · Gegenspieler {theirs} (61 gewinnt; der Skat zählt am Ende für den Alleinspieler)",
  "table.tricksPlayed": "Gespielte Stiche ({n})", "table.dealsTitle": "Spiele", "col.deal": "Spiel", "col.game": "Spielart", "col.score": "Wert",
  "final.title": "Endstand", "final.again": "Noch einmal gegen dieselben Gegner",
  "table.passedIn": "eingepasst", "table.won": "gewonnen", "table.lost": "verloren",
  "table.asDealt": "Spiel {n}, wie gegeben ", "table.replayIt": "(nachspielen)", "table.tv": "TV: folgt einem laufenden Tisch",
  "table.tookIt": "{who} hat ihn genommen", "table.lastTrick": "letzter Stich (L)", "table.skatHidden": "der Skat, verdeckt",
  "table.animateOn": "Bewegung: an", "table.animateOff": "Bewegung: aus", "table.soundOn": "Ton: an", "table.soundOff": "Ton: aus",
  "sheet.title": "Spiel {n}: das Ergebnis", "sheet.won": "{who} hat {game} gewonnen (gereizt {bid}).", "sheet.lost": "{who} hat {game} verloren (gereizt {bid}).",
  "sheet.overbid": "Überreizt: das Spiel war weniger wert als das Gebot.",
  "sheet.value": "Wert {value} = {base} × {mult} ({levels}); Ergebnis {score}.",
  "level.game": "Spiel", "level.hand": "Hand", "level.schneider": "Schneider", "level.schneiderAnnounced": "Schneider angesagt",
  "level.schwarz": "Schwarz", "level.schwarzAnnounced": "Schwarz angesagt", "level.ouvert": "offen", "level.each": "Spiel und jede Stufe",
  "sheet.valueNull": "Wert {value}; Ergebnis {score}.", "sheet.with": "mit", "sheet.without": "ohne",
  "sheet.points": "Augen: {who} {mine} (mit dem Skat, {tricks} Stiche) · Gegenspieler {theirs}.",
  "sheet.pointsServer": "Augen: {who} {mine} (mit dem Skat) · Gegenspieler {theirs}.",
  "sheet.list": "Die Liste (Seeger-Fabian-Punkte, keine Augen)", "sheet.player": "Spieler", "sheet.thisDeal": "dieses Spiel", "sheet.total": "gesamt",
  "sheet.continue": "weiter zum Tisch", "sheet.putAway": "Gedrückt:", "sheet.skatHand": "Der Skat (Handspiel):", "sheet.lastTrick": "Letzter Stich:",
  "sheet.grace": "In den ersten {s} s nach einem Spiel läuft keine Uhr: lies in Ruhe, dann weiter zum Tisch.",
  "tv.idle": "Gerade wird nicht gespielt; alle 5 Sekunden wird neu geschaut.", "table.animate": "Karten bewegen",
  "call.say": "sagt", "call.hold": "ja", "call.pass": "passe",
  "me.hand": "Deine Karten, {name}", "me.turn": "Du bist dran.", "me.turnCard": "Du bist dran: spiel eine Karte.",
  "me.turnDiscard": "Du bist dran: wähle zwei Karten zum Drücken.", "me.waiting": "Warte auf die anderen.",
  "me.play": "{card} spielen", "me.putAway": "{card} drücken", "me.say": "{value} sagen", "me.hold": "ja", "me.pass": "passe",
  "me.pickUp": "Skat aufnehmen", "me.playHand": "Hand spielen", "me.discard": "die zwei gewählten Karten drücken",
  "me.declare": "{game} ansagen", "me.claim": "Rest beanspruchen", "me.resign": "aufgeben", "me.seat": "Dein Platz", "me.decision": "Deine Entscheidung",
  "me.declareValue": "{game} ansagen · {value}", "me.declareOver": "{game} ansagen · {value}: überreizt",
  "me.contractsHelp": "Der Wert ist, was das Spiel gewonnen wie angesagt mindestens zählt, aus den Karten, die du kennst; unter deinem Reizwert {bid} ist es überreizt und verloren. Hand: ohne Skat, eine Stufe mehr. Schneider oder schwarz angesagt: du versprichst 90 Augen oder alle Stiche. Ouvert: deine Karten liegen offen.",
  "me.claimSure": "Rest beanspruchen? noch einmal drücken", "me.resignSure": "aufgeben? noch einmal drücken",
  "me.bidValue": "beliebiger Reizwert:", "me.sayChosen": "sagen",
  "play.title": "Eine Liste gegen Bots spielen", "play.name": "Dein Name", "play.opponent": "Gegner {n}", "play.openSeat": "ein freier Platz für einen Menschen",
  "play.level": "Stufe {n}: {s}",
  "play.deals": "Spiele", "play.seconds": "Sekunden pro Entscheidung", "play.start": "Hinsetzen",
  "play.insecure": "Diese Seite läuft nicht über HTTPS: das Platz-Token ginge im Klartext übers Netz, darum kannst du dich hier nicht hinsetzen. Der Betreiber stellt die Seite mit --tls-cert bereit (docs/deploy.md).",
  "play.seats": "Plätze", "play.four": "4 (der Geber setzt aus; Gegner 3 spielt mit)",
  "play.intro": "Wähle deine Gegner: die Hausbots des Servers oder einen freien Platz, den ein anderer Mensch aus der Tischliste nehmen kann.",
  "play.noHouse": "Auf diesem Server ist kein Hausbot da: lass Plätze für andere Menschen frei (oder für Bots, die du selbst startest).",
  "play.watchOnly": "Auf diesem Server kann man zuschauen, sich aber nicht selbst hinsetzen: Menschen spielen hier an Tischen, die der Betreiber eröffnet. Hat er dir einen Platz-Link gegeben, öffne ihn; hast du eine Tisch-ID und ein Platz-Token, gib sie hier ein.",
  "play.tableId": "Tisch-ID", "play.seatToken": "Platz-Token", "play.takeSeat": "Platz nehmen", "play.notYourSeat": "Dieses Token hält keinen Platz an diesem Tisch.",
  "play.against": "{name} gegen {who}", "play.people": "Menschen", "play.and": " und ",
  "replay.title": "Spiel {n} nachspielen", "replay.heading": "Spiel {n} von ", "replay.notEnded": "Spiel {n} dieses Tisches ist noch nicht beendet.",
  "replay.toTable": "zum Tisch", "replay.start": "« Anfang", "replay.back": "◀ zurück", "replay.forward": "vor ▶", "replay.end": "Ende »",
  "replay.step": "Zug {n} von {total}", "replay.prev": "voriges Spiel", "replay.next": "nächstes Spiel", "replay.putAway": " gedrückt: ",
  "replay.trick": "Stich", "replay.hands": "Karten ({n} {tricks} gespielt)", "replay.moves": "Züge",
  "replay.says": "{who} sagt {value}", "replay.holds": "{who} sagt ja", "replay.passes": "{who} passt", "replay.picksUp": "{who} nimmt den Skat auf",
  "replay.playsHand": "{who} spielt Hand", "replay.discards": "{who} drückt {cards}", "replay.declares": "{who} sagt {game} an",
  "replay.playsCard": "{who} spielt {card}", "replay.passedIn": "Eingepasst: niemand hat gespielt.",
  "replay.penalty": "Kein Spiel: ein Platz hat vor der Ansage verwirkt.", "replay.result": "{who} hat mit {points} Augen {outcome}; Spielwert {value}.",
  "tournaments.title": "Turniere", "tournaments.hideCasual": "freie Runden ausblenden", "tournaments.showCasual": "freie Runden zeigen",
  "col.tournament": "Turnier", "col.format": "Modus", "col.start": "Beginn", "col.played": "gespielt", "col.entrants": "Teilnehmer",
  "tournaments.none": "Noch keine Turniere.", "tournament.standings": "Tabelle", "tournament.h2h": "Direkter Vergleich", "tournament.tables": "Tische",
  "col.rank": "#", "col.entrant": "Teilnehmer", "col.lists": "Listen", "col.sfTotal": "SF gesamt", "col.sfMean": "SF Mittel", "col.ci": "±95 %",
  "col.wonDeclared": "gewonnen/gespielt", "col.penalties": "Strafen", "col.round": "Runde", "col.meeting": "Begegnung", "col.seating": "Sitzordnung",
  "tournament.status": "{format} · {seats} Plätze{round} · {status} · Beginn {start} · {played}/{all} Tische gespielt{abandoned}",
  "tournament.round": " · Runde {n} von {total}", "tournament.abandoned": ", {n} abgebrochen",
  "deals.title": "Karten", "deals.committed": "Bei der Anlage festgelegt: ", "deals.later": " (das Geheimnis wird nach dem Turnier aufgedeckt)",
  "deals.verify": "Karten prüfen", "deals.checking": "prüfe…",
  "leaderboard.title": "Rangliste", "leaderboard.about": "Weng-Lin-Wertungen nach jeder gewerteten Liste, geordnet nach Wertung − 3 × Unsicherheit.",
  "col.bot": "Bot", "col.rating": "Wertung", "col.pm": "±", "leaderboard.none": "Noch niemand ist gewertet.",
  "leaderboard.ladder": "Die Hausbots (house-…) sind die Leiter der eingebauten Spielstärken, von Stufe 1 ({first}) bis Stufe {n} ({last}): wo ein Bot zwischen ihnen steht, sagt, wie stark er ist.",
  "col.level": "Stufe", "level.badge": "Stufe {n} · {s}", "level.about": "der Leiter eingebauter Spielstärken: ein Hausbot dieses Servers, der jede Herausforderung annimmt.",
  "bot.online": "online", "bot.offline": "offline", "bot.disabled": "gesperrt",
  "bot.rated": "Wertung {r} ± {u} nach {n} Listen", "bot.unrated": "noch nicht gewertet", "bot.tables": "spielt höchstens {n} Tische gleichzeitig",
  "bot.history": "Wertung im Verlauf", "bot.recent": "Letzte Listen", "col.seatingSf": "Sitzordnung und Seeger-Fabian", "bot.noLists": "Noch keine beendeten Listen.",
  "chart.none": "Noch keine gewerteten Listen.",
  "format.round_robin": "Jeder gegen jeden", "format.swiss": "Schweizer System", "format.casual": "freie Runde", "format.challenge": "Herausforderung",
  "tstatus.scheduled": "geplant", "tstatus.running": "läuft", "tstatus.paused": "pausiert", "tstatus.finished": "beendet", "tstatus.cancelled": "abgesagt",
  "dealt.skat": "Skat",
  "an.title": "Analyse", "an.queued": "Analyse wartet ({n} Tische davor)…", "an.running": "Analyse läuft…", "an.none": "keine Analyse: {why}",
  "an.noPlay": "In diesem Spiel gibt es kein Kartenspiel zu beurteilen.",
  "an.about": "{who} spielte {game}. Die Linie: die {what} des Alleinspielers bei offenen Karten nach jeder Karte; Punkte: dasselbe erwartet nach dem, was der Spieler am Zug wusste ({worlds} Welten), rot bei einem Fehler. Zeichen: ?? grober Fehler, ? Fehler (nach dem Wissen des Spielers), ◆ hat das Ergebnis nur bei offenen Karten gedreht.",
  "an.points": "Augen", "an.result": "Ergebnis (1 gewonnen)", "an.accuracy": "Genauigkeit an diesem Tisch",
  "an.player": "Spieler", "an.as": "als", "an.judged": "beurteilte Karten", "an.lossOpen": "mittlerer Verlust, offene Karten", "an.lossKnown": "mittlerer Verlust, nach Wissen",
  "an.mistakes": "Fehler", "an.blunders": "grobe Fehler", "an.flipped": "gedrehte Ergebnisse", "an.declarer": "Alleinspieler", "an.defender": "Gegenspieler",
  "an.open": "Bei offenen Karten: {value} danach, {best} nach {card}.",
  "an.knew": " Nach dem, was der Spieler wusste ({worlds} Welten): {mean} erwartet danach, {bestMean} nach {card}; Verlust {loss} (95 % {lo} bis {hi}).",
  "an.curve": "Die {what} des Alleinspielers bei offenen Karten, vor der ersten Karte und nach jeder",
  "an.game": "Reizen und Spiel", "an.option": "{game} (Wert {value}, gewonnen {chance} %, erwartet {expected} SF)",
  "an.overbid": "{who} reizte {bid}: überreizt, die Karten waren laut Simulation bis {worth} wert (0: passen).",
  "an.gameWorse": "Gespielt {made}; {best} war um {loss} SF besser (95 % {lo} bis {hi}).",
  "an.gameFine": "Gespielt {made}: keine Wahl, die das Reizgebot erreicht, war laut Simulation besser.",
  "verify.ok": "geprüft: die {deals} Spiele an {tables} Tischen stammen aus dem bei der Anlage festgelegten Geheimnis ({commitment}…)",
  "verify.mismatch": "das aufgedeckte Geheimnis passt nicht zur Festlegung {commitment}", "verify.insecure": "diese Seite ist kein sicherer Kontext (https oder dieser Rechner): skat tournament verify benutzen",
  "verify.noSeed": "Tisch {table}: ein Protokoll ohne seinen Startwert", "verify.badSeed": "Tisch {table}: Startwert {seed} stammt nicht aus dem Geheimnis",
  "verify.old": "vor der Festlegung der Karten angelegt: nichts zu prüfen",
  "op.title": "Betreiber", "op.token": "Admin-Token", "op.signIn": "Anmelden", "op.signOut": "Abmelden", "op.tryAgain": "Noch einmal",
  "op.kept": "Das Token bleibt nur im Sitzungsspeicher dieses Tabs und wird nur über HTTPS oder an diesen Rechner gesendet.",
  "op.whichToken": "Das Admin-Token ist das, mit dem der Server gestartet wurde: skat serve --admin-token oder SKAT_ADMIN_TOKEN in seiner Umgebung.",
  "op.insecure": "Diese Seite läuft nicht über HTTPS: das Admin-Token ginge im Klartext übers Netz, darum wird es nicht gesendet. Stelle die Seite mit --tls-cert bereit (docs/deploy.md).",
  "op.refused": "Der Server hat das Token abgelehnt: {why}. Gib das Admin-Token ein, mit dem der Server gestartet wurde (skat serve --admin-token oder SKAT_ADMIN_TOKEN in seiner Umgebung).",
  "op.online": "Jetzt verbunden", "op.tournaments": "Turniere", "op.accounts": "Konten", "op.audit": "Protokoll",
  "op.nobodyOnline": "Mit diesem Server ist kein Bot verbunden.", "op.nothingYet": "Noch nichts.",
  "op.owner": "Besitzer", "op.lobbies": "Lobbys", "op.tablesNow": "Tische", "op.state": "Zustand", "op.quota": "Kontingent",
  "op.lastSeen": "zuletzt gesehen", "op.created": "angelegt", "op.former": "frühere Namen", "op.never": "nie", "op.removed": "entfernt",
  "op.when": "wann", "op.from": "von", "op.action": "Aktion", "op.target": "Ziel", "op.detail": "Einzelheiten", "op.copy": "kopieren",
  "op.newName": "neues Konto", "op.register": "Anlegen", "op.registered": "Konto {name} angelegt. Sein Bot-Token:",
  "op.rotated": "{name} hat ein neues Bot-Token (das alte gilt nicht mehr):",
  "op.tokenOnce": "Wird nur einmal gezeigt: gib es dem Besitzer des Bots, der es in einer Datei oder in SKAT_BOT_TOKEN aufbewahrt (nie auf der Kommandozeile).",
  "op.rename": "umbenennen", "op.renameTo": "Neuer Name für {name}:", "op.enable": "einschalten", "op.disable": "sperren", "op.remove": "entfernen",
  "op.removeAsk": "{name} entfernen? Das Konto wird gesperrt und öffentlich nicht mehr gezeigt; seine Ergebnisse bleiben, einschalten holt es zurück.",
  "op.rotate": "neues Token", "op.rotateAsk": "{name} ein neues Bot-Token geben? Das alte gilt dann nicht mehr, und seine Lobbys enden.",
  "op.setQuota": "Kontingent", "op.quotaTo": "Tische, die {name} gleichzeitig spielen darf (1 bis 1000):", "op.setOwner": "Besitzer", "op.ownerTo": "Kontakt des Besitzers von {name}:",
  "op.pause": "anhalten", "op.resume": "fortsetzen", "op.cancel": "absagen", "op.cancelAsk": "{name} absagen? Seine unfertigen Tische werden abgebrochen.",
  // the author's page of a hosted bot
  "mine.title": "Mein Bot", "mine.token": "Bot-Token",
  "mine.kept": "Für die Autorin eines gehosteten Bots: seine Versionen, seine Sandboxen und ihre Ausgabe. Das Token bleibt nur im Sitzungsspeicher dieses Tabs und wird nur über HTTPS oder an diesen Rechner gesendet.",
  "mine.whichToken": "Das Token deines Bots: das vom Betreiber (skat admin register-bot), mit dem dein Bot über --bot-token oder SKAT_BOT_TOKEN spielt.",
  "mine.insecure": "Diese Seite läuft nicht über HTTPS: das Bot-Token ginge im Klartext übers Netz, darum wird es nicht gesendet. Bitte den Betreiber, die Seite mit --tls-cert bereitzustellen.",
  "mine.refused": "Der Server hat das Token abgelehnt: {why}. Gib das Token deines Bots an (mit dem er spielt, --bot-token oder SKAT_BOT_TOKEN).",
  "mine.versions": "Versionen", "mine.sandboxes": "Sandboxen (neueste zuerst)",
  "mine.noVersions": "Noch keine Version eingereicht: skat bot submit --bot-token T --archive bot.tar (docs/hosted-bots.md).",
  "mine.noSandboxes": "Noch keine Sandbox: dein Bot saß noch nicht als gehosteter Bot am Tisch.",
  "mine.digest": "Digest", "mine.submitted": "eingereicht", "mine.active": "aktiv", "mine.image": "Image",
  "mine.archive": "Archiv, {mib} MiB", "mine.pending": "wartet auf Freigabe", "mine.approved": "darf spielen", "mine.failed": "gescheitert",
  "mine.started": "gestartet", "mine.table": "Tisch", "mine.seat": "Platz {n}", "mine.exit": "Exit-Status",
  "mine.cpu": "CPU s", "mine.memory": "Spitze MiB", "mine.output": "Ausgabe ({kib} KiB)", "mine.outputOf": "Ausgabe der Sandbox {id}",
  "mine.cut": "Ältere Ausgabe wurde verworfen: das letzte 1 MiB bleibt.", "mine.silent": "(keine Ausgabe)",
  "mine.running": "läuft", "mine.exited": "beendet", "mine.stopped": "nach dem Tisch gestoppt",
  "mine.oom": "Speicher erschöpft", "mine.timedOut": "Zeitlimit", "mine.failedToStart": "nicht gestartet",
  "card": "{suit} {rank}", "suit.0": "Karo", "suit.1": "Herz", "suit.2": "Pik", "suit.3": "Kreuz",
  "rank.0": "Sieben", "rank.1": "Acht", "rank.2": "Neun", "rank.3": "Dame", "rank.4": "König", "rank.5": "Zehn", "rank.6": "Ass", "rank.7": "Bube",
  "game.diamonds": "Karo", "game.hearts": "Herz", "game.spades": "Pik", "game.clubs": "Kreuz", "game.grand": "Grand", "game.null": "Null",
  "game.hand": "Hand", "ann.schneider": "Schneider angesagt", "ann.schwarz": "Schwarz angesagt", "ann.ouvert": "ouvert",
  "one.card": "Karte", "many.cards": "Karten", "one.trick": "Stich", "many.tricks": "Stiche",
};

export type Lang = "en" | "de";
const CATALOGUES: Record<Lang, Record<Id, string>> = { en, de };
const KEY = "skat-lang";

/** The page's language: the reader's choice, else the browser's first preference we have. */
export function lang(): Lang {
  const chosen = localStorage.getItem(KEY);
  if (chosen === "en" || chosen === "de") return chosen;
  for (const l of navigator.languages ?? [navigator.language]) {
    const base = l.toLowerCase().split("-")[0];
    if (base === "de" || base === "en") return base;
  }
  return "en";
}

/** Chooses the language for this browser (kept in local storage). */
export function setLang(l: Lang) {
  localStorage.setItem(KEY, l);
  document.documentElement.lang = l;
}

/** The message `id` in the page's language, `{name}` filled from `vars`. */
export function t(id: Id, vars: Record<string, string | number> = {}): string {
  const text = CATALOGUES[lang()][id] ?? en[id];
  return text.replace(/\{(\w+)\}/g, (_, k: string) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** `n` with the word for one or many (`card`/`cards`) in the page's language. */
export function count(n: number, one: "one.card" | "one.trick"): string {
  const many = one === "one.card" ? "many.cards" : "many.tricks";
  return new Intl.PluralRules(lang()).select(n) === "one" ? t(one) : t(many);
}

/** A game in words: "grand hand schneider announced", "Kreuz Hand". */
export function gameWords(game: string, hand: boolean, announcement: string): string {
  const g = game.toLowerCase().replace(/^game_type_/, "").replace(/_/g, "");
  const a = announcement.toLowerCase().replace(/^announcement_/, "");
  const words = [CATALOGUES[lang()][`game.${g}` as Id] ?? g];
  if (hand) words.push(t("game.hand"));
  if (a && a !== "none" && a !== "unspecified") words.push(CATALOGUES[lang()][`ann.${a}` as Id] ?? a);
  return words.join(" ");
}

/** Puts the static page (navigation, footer) in the page's language and offers the
 * switch; `onChange` redraws the current view. */
export function localizeStatic(onChange: () => void) {
  document.documentElement.lang = lang();
  for (const el of Array.from(document.querySelectorAll<HTMLElement>("[data-i18n]"))) {
    el.textContent = t(el.dataset.i18n as Id);
  }
  // The switch is in the static page (index.html), so that the header does not change
  // its height when the script arrives (a layout shift).
  const select = document.getElementById("lang") as HTMLSelectElement | null;
  if (select) {
    select.value = lang();
    select.setAttribute("aria-label", t("lang.label"));
    select.onchange = () => {
      setLang(select.value as Lang);
      localizeStatic(onChange);
      onChange();
    };
  }
}
