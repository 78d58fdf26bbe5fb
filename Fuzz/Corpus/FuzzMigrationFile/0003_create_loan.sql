0003_create_loan.sql
-- migrate:up
CREATE TABLE loan (
    id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES book(id),
    borrower TEXT NOT NULL,
    loaned_at TEXT NOT NULL DEFAULT (datetime('now')),
    returned_at TEXT
);

-- A book is on loan at most once at a time.
CREATE UNIQUE INDEX loan_open_book ON loan(book_id) WHERE returned_at IS NULL;

CREATE VIEW book_on_loan AS
    SELECT book.id, book.title, loan.borrower, loan.loaned_at
    FROM book JOIN loan ON loan.book_id = book.id
    WHERE loan.returned_at IS NULL;

-- migrate:down
DROP VIEW book_on_loan;
DROP INDEX loan_open_book;
DROP TABLE loan;
