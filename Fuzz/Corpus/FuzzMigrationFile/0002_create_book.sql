0002_create_book.sql
-- migrate:up
CREATE TABLE book (
    id INTEGER PRIMARY KEY,
    author_id INTEGER NOT NULL REFERENCES author(id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    published_year INTEGER
);
CREATE INDEX book_author_id ON book(author_id);

-- migrate:down
DROP INDEX book_author_id;
DROP TABLE book;
