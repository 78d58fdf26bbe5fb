0001_create_author.sql
-- migrate:up
CREATE TABLE author (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    country TEXT
);

-- migrate:down
DROP TABLE author;
