from sensekit.cli import main

raise SystemExit(main())
