"""Playing games: the compiled game loops (:mod:`hsim.play.hearts_game`,
:mod:`hsim.play.kierki_game`) with the seats that call the bots
(:mod:`hsim.play.seats`), the range of games a worker plays and the Python driver
(:mod:`hsim.play.games`), a deal in progress (:mod:`hsim.play.position`) and any
strategy's answer at a position (:mod:`hsim.play.choose`)."""
