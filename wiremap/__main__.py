from wiremap.cli import main

raise SystemExit(main())
