from guigraph.cli.main import main

main()
