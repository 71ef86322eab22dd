from procure.entry import main

main()
