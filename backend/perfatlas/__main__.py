from perfatlas.cli import main

main()
